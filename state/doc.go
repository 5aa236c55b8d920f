// Package state is a project's state as the service holds it and as a
// client reads it: the one client-side model of it. The service's client
// returns it (service.State is a Project), the planner plans against it
// (planner.State is a Project) and cc state shows it. The service keeps
// its own rows in SQLite and sends ccv1 messages on the wire; those are
// its storage and its API, and convert to this in the client only.
//
// A program that embeds cc reads a Project from Applier.Plan (the state a
// plan was made against) or from service.Client.GetState: its Serial (it
// counts the project's mutations: a plan is made against one), Lineage,
// Resources sorted by address (each with its Address, Kind, Spec, Hash,
// Status and Version), and the Lock when an apply holds it. Nothing here
// does I/O; there is nothing to call but the methods of these types.
package state

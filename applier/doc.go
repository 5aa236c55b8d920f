// Package applier plans a project against its service's state and carries
// the plan out: it reads the state a plan is made against, takes the
// project's lock, uploads the blobs the service lacks, and walks the
// plan's changes in dependency order with bounded parallelism, reporting
// progress and every error with its resource's address and configuration
// position. It is the package that talks to the service for plan and
// apply; package planner, which it calls, does no I/O.
//
// # The flow
//
// After compiler.Compile (see package compiler for the whole flow):
//
//   - New makes an Applier for a service client (*service.Client from
//     service.OpenProject, OpenEmbedded or Dial). WithSecrets(LocalSecrets{Root:
//     root}) reads secret values from the environment and env files as cc
//     does; WithProgress and WithNotices say where progress lines and
//     notices go (nowhere by default); WithParallelism, WithLockTimeout and
//     WithAllowDataLoss are cc apply's --parallelism, --lock-timeout and
//     --allow-data-loss; WithHolder names the program in the lock
//     (service.CurrentHolder("my-bot")), which cc shows to whoever waits
//     for it.
//   - Applier.Plan reads the state in one call and diffs it: a
//     *planner.Plan and the *planner.State it was made against. An
//     unchanged project costs that one call (Plan.Changed is false).
//     planner.DataLoss(plan, state) names what an apply would destroy.
//   - Applier.Lock takes the project's lock (waiting up to the lock
//     timeout; a *LockedError names the holder) and keeps it renewed. When
//     Lock.Serial is not the plan's Serial, another apply came between:
//     plan again under the lock.
//   - MissingSecretValues refuses, before anything changes, a plan whose
//     new secrets have no local value.
//   - Applier.Apply carries the plan out under the lock and returns a
//     *Result: what was done (Counts), every *Error, what did not start,
//     and whether the service stopped answering (Lost, ServiceLost).
//     Result.Err is nil when everything was done. Applying again carries
//     on where an apply stopped.
//   - Lock.Release releases the lock.
//
// A saved plan (planner.LoadFile) is applied by checking it against the
// state it is applied to: StateResolving, then planner's File.Check, under
// the lock too; PlanKey is the key of the SensitiveMAC of a plan whose
// configuration has sensitive values (HasSensitive).
//
// Example runs the whole flow against an embedded service, and
// Example_savedPlan a CI bot's: plan and save on a pull request, apply the
// saved plan on merge.
package applier

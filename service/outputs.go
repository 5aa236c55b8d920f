package service

import (
	"context"
	"database/sql"
	"encoding/json"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Outputs (issue 12): each project's output values, replaced as a whole
// by SetOutputs at the end of a successful apply and read by GetState. A
// sensitive value is sealed with the key and code of secret values
// (keys.seal, at the address "output.NAME", revision 0), so it is never
// in the database in clear.

// outputsTable is migration 10.
const outputsTable = `
CREATE TABLE outputs (
	project     TEXT NOT NULL,
	name        TEXT NOT NULL,
	value       BLOB NOT NULL,
	nonce       BLOB NOT NULL,
	description TEXT NOT NULL,
	sensitive   INTEGER NOT NULL,
	PRIMARY KEY (project, name)
) STRICT;
`

// outputPlace is the address an output's sealed value is bound to.
func outputPlace(name string) string { return "output." + name }

// checkOutputs validates the outputs of a request.
func checkOutputs(outs []*ccv1.Output) error {
	plain := make([]schema.Output, len(outs))
	for i, o := range outs {
		plain[i] = schema.Output{Name: o.GetName(), Value: o.GetValue(), Description: o.GetDescription(), Sensitive: o.GetSensitive()}
	}
	if err := schema.CheckOutputs(plain); err != nil {
		return status.Errorf(codes.InvalidArgument, "outputs: %v", err)
	}
	return nil
}

// SetOutputs replaces the project's outputs under the caller's lease.
func (a *resourceAPI) SetOutputs(ctx context.Context, req *ccv1.SetOutputsRequest) (*ccv1.SetOutputsResponse, error) {
	if err := checkOutputs(req.GetOutputs()); err != nil {
		return nil, err
	}
	if req.GetProject() == Unowned {
		return nil, status.Error(codes.InvalidArgument, "the unowned resources have no outputs")
	}
	resp := &ccv1.SetOutputsResponse{}
	err := a.s.mutate(ctx, ccv1.ResourceService_SetOutputs_FullMethodName, req, resp, func(t *mutation) error {
		if err := t.exec("DELETE FROM outputs WHERE project = ?", t.project); err != nil {
			return dbError(err)
		}
		for _, o := range req.GetOutputs() {
			value, nonce := o.GetValue(), []byte{}
			if o.GetSensitive() {
				nonce, value = t.s.keys.seal(value, t.project, outputPlace(o.GetName()), 0)
			}
			if err := t.exec("INSERT INTO outputs (project, name, value, nonce, description, sensitive) VALUES (?, ?, ?, ?, ?, ?)",
				t.project, o.GetName(), value, nonce, o.GetDescription(), o.GetSensitive()); err != nil {
				return dbError(err)
			}
		}
		resp.Serial = t.bump()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// stateOutputs reads the project's outputs, sensitive values opened, into
// resp.
func (s *Server) stateOutputs(ctx context.Context, tx *sql.Tx, project string, resp *ccv1.GetStateResponse) error {
	rows, err := tx.QueryContext(ctx, "SELECT name, value, nonce, description, sensitive FROM outputs WHERE project = ? ORDER BY name", project)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		o := &ccv1.Output{}
		var value, nonce []byte
		if err := rows.Scan(&o.Name, &value, &nonce, &o.Description, &o.Sensitive); err != nil {
			return dbError(err)
		}
		if o.Sensitive {
			if value, err = s.keys.aead.Open(nil, nonce, value, secretAD(project, outputPlace(o.Name), 0)); err != nil {
				return s.openFailed(ctx, "output "+o.Name+": its sealed value") // rotatekeys.go
			}
		}
		o.Value = value
		resp.Outputs = append(resp.Outputs, o)
	}
	if err := rows.Err(); err != nil {
		return dbError(err)
	}
	return nil
}

// SetOutputsRequest replaces a project's outputs.
type SetOutputsRequest struct {
	Project string
	Outputs []schema.Output

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// SetOutputs replaces the project's outputs, returning the new serial.
func (c *Client) SetOutputs(ctx context.Context, req SetOutputsRequest) (int64, error) {
	outs := make([]*ccv1.Output, len(req.Outputs))
	for i, o := range req.Outputs {
		outs[i] = &ccv1.Output{Name: o.Name, Value: o.Value, Description: o.Description, Sensitive: o.Sensitive}
	}
	resp, err := c.resources.SetOutputs(ctx, &ccv1.SetOutputsRequest{Project: req.Project, Outputs: outs,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID})
	if err != nil {
		return 0, fromStatus(err)
	}
	return resp.GetSerial(), nil
}

// outputsFromProto converts the outputs of a state.
func outputsFromProto(outs []*ccv1.Output) []schema.Output {
	var out []schema.Output
	for _, o := range outs {
		out = append(out, schema.Output{Name: o.GetName(), Value: json.RawMessage(o.GetValue()), Description: o.GetDescription(), Sensitive: o.GetSensitive()})
	}
	return out
}

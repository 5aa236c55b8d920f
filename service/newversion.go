package service

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// checkNewVersion refuses an ApplyResource request's new_version where it
// means nothing: on any kind but a function (a dataset's revision is its
// content), and on a create, whose first version is new anyway.
func checkNewVersion(addr string, kind schema.Kind, action ccv1.Action, newVersion bool) error {
	switch {
	case !newVersion:
		return nil
	case kind != schema.KindFunction:
		return status.Errorf(codes.InvalidArgument, "%s: new_version is for functions only: a %s has no versions to force", addr, kind)
	case action == ccv1.Action_ACTION_CREATE:
		return status.Errorf(codes.InvalidArgument, "%s: new_version on a create: its first version is new anyway", addr)
	}
	return nil
}

package main

import (
	"cc.dev/cc/applier"
	"cc.dev/cc/schema"
)

// planKey is applier.PlanKey: the key of a saved plan's SensitiveMAC.
func planKey(root string) ([]byte, error) { return applier.PlanKey(root) }

func hasSensitive(d *schema.Desired) bool { return applier.HasSensitive(d) }

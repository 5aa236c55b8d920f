package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// MarshalCanonical writes the Desired state as canonical JSON, equal to
// Canonical(d), without re-parsing the specs, which are canonical already.
func (d *Desired) MarshalCanonical() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(d.Resources) * 512)
	b.WriteByte('{')
	if len(d.Data) > 0 {
		c, err := Canonical(d.Data)
		if err != nil {
			return nil, err
		}
		b.WriteString(`"data":`)
		b.Write(c)
		b.WriteByte(',')
	}
	b.WriteString(`"format_version":`)
	b.WriteString(strconv.Itoa(d.FormatVersion))
	if err := writeField(&b, "imports", len(d.Imports) > 0, d.Imports); err != nil {
		return nil, err
	}
	if err := writeField(&b, "moves", len(d.Moves) > 0, d.Moves); err != nil {
		return nil, err
	}
	if err := writeField(&b, "outputs", len(d.Outputs) > 0, d.Outputs); err != nil {
		return nil, err
	}
	b.WriteString(`,"project":`)
	writeString(&b, d.Project)
	if err := writeField(&b, "removed", len(d.Removed) > 0, d.Removed); err != nil {
		return nil, err
	}
	b.WriteString(`,"resources":[`)
	for i := range d.Resources {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := d.Resources[i].writeCanonical(&b); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	if len(d.Trees) > 0 {
		b.WriteString(`,"trees":{`)
		keys := make([]string, 0, len(d.Trees))
		for k := range d.Trees {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, k)
			b.WriteByte(':')
			c, err := Canonical(d.Trees[k])
			if err != nil {
				return nil, err
			}
			b.Write(c)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeField writes `,"name":` and v's canonical JSON when present.
func writeField(b *bytes.Buffer, name string, present bool, v any) error {
	if !present {
		return nil
	}
	c, err := Canonical(v)
	if err != nil {
		return err
	}
	b.WriteString(`,"` + name + `":`)
	b.Write(c)
	return nil
}

// writeCanonical writes the resource's JSON fields in sorted key order.
func (r *Resource) writeCanonical(b *bytes.Buffer) error {
	b.WriteString(`{"address":`)
	writeString(b, r.Address)
	if len(r.Aliases) > 0 {
		b.WriteString(`,"aliases":`)
		writeStrings(b, r.Aliases)
	}
	if len(r.DependsOn) > 0 {
		b.WriteString(`,"depends_on":`)
		writeStrings(b, r.DependsOn)
	}
	b.WriteString(`,"hash":`)
	writeString(b, r.Hash)
	if len(r.Inputs) > 0 {
		c, err := Canonical(r.Inputs)
		if err != nil {
			return err
		}
		b.WriteString(`,"inputs":`)
		b.Write(c)
	}
	b.WriteString(`,"kind":`)
	writeString(b, string(r.Kind))
	if r.Lifecycle != nil {
		c, err := Canonical(r.Lifecycle)
		if err != nil {
			return err
		}
		b.WriteString(`,"lifecycle":`)
		b.Write(c)
	}
	b.WriteString(`,"name":`)
	writeString(b, r.Name)
	if len(r.Sensitive) > 0 {
		b.WriteString(`,"sensitive":`)
		writeStrings(b, r.Sensitive)
	}
	b.WriteString(`,"spec":`)
	if !json.Valid(r.Spec) {
		return fmt.Errorf("resource %s: spec is not JSON", r.Address)
	}
	b.Write(r.Spec)
	b.WriteByte('}')
	return nil
}

func writeStrings(b *bytes.Buffer, ss []string) {
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, s)
	}
	b.WriteByte(']')
}

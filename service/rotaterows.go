package service

import (
	"fmt"
	"strings"
)

// rotatePage is how many rows a rotation reads at a time.
const rotatePage = 256

// keyset calls fn with the key and cols of each row of table (where extra
// holds, when not ""), in the order of its primary key key, reading
// rotatePage rows at a time: a page is read whole before fn writes, since
// a PostgreSQL connection cannot write while it reads rows.
func (r *rotation) keyset(table string, key, cols []string, extra string, fn func(key, cols []any) error) error {
	var last []any
	for {
		q, args := keysetQuery(table, key, cols, extra, last)
		rows, err := r.tx.QueryContext(r.ctx, q, args...)
		if err != nil {
			return err
		}
		var page [][]any
		for rows.Next() {
			row := make([]any, len(key)+len(cols))
			ptrs := make([]any, len(row))
			for i := range row {
				ptrs[i] = &row[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return err
			}
			page = append(page, row)
		}
		if err := closeRows(rows); err != nil {
			return err
		}
		for _, row := range page {
			if err := fn(row[:len(key)], row[len(key):]); err != nil {
				return err
			}
		}
		if len(page) < rotatePage {
			return nil
		}
		last = page[len(page)-1][:len(key)]
	}
}

// keysetQuery selects the page of rows after the key last (nil: the
// first page), in portable SQL: no row values.
func keysetQuery(table string, key, cols []string, extra string, last []any) (string, []any) {
	var conds []string
	if extra != "" {
		conds = append(conds, "("+extra+")")
	}
	var args []any
	if last != nil {
		var or []string
		for i := range key {
			var and []string
			for j := 0; j < i; j++ {
				and = append(and, key[j]+" = ?")
				args = append(args, last[j])
			}
			and = append(and, key[i]+" > ?")
			args = append(args, last[i])
			or = append(or, "("+strings.Join(and, " AND ")+")")
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	q := "SELECT " + strings.Join(append(append([]string{}, key...), cols...), ", ") + " FROM " + table
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	return q + " ORDER BY " + strings.Join(key, ", ") + fmt.Sprintf(" LIMIT %d", rotatePage), args
}

// asString, asBytes and asInt convert a column scanned into an any: TEXT
// comes as a string (or bytes), BLOB as bytes, INTEGER as an int64.
func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func asBytes(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	}
	return nil
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	}
	return 0
}

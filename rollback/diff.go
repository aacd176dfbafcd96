package rollback

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// FieldDiff is one field whose value differs between two states: the
// answer to "where did two worlds part?".
type FieldDiff struct {
	// Path names the field from the state type, as CheckType names fields,
	// with array indexes spelled out: "World.Ball.VX",
	// "World.Players[1].Score".
	Path string
	// Offset is the field's byte offset in the state.
	Offset int
	// Kind is the field's kind (a scalar: bool, an integer, a float or a
	// complex number).
	Kind reflect.Kind
	// A and B are the field's values in the first and the second state,
	// formatted (floats in their shortest round-trip form, so two floats
	// that differ print differently, NaN payloads aside).
	A, B string
}

// String returns "Path: A vs B".
func (d FieldDiff) String() string { return d.Path + ": " + d.A + " vs " + d.B }

// DiffBytes compares two states of type t field by field and returns the
// first max fields that differ, in memory order, and how many differ in all
// (max < 0 means no limit). The states are bytes (BytesOf of a typed state,
// a Bytes ring's, a file's, a peer's), each t.Size() bytes in the
// platform's memory layout: the little-endian layout BytesOf gives. Other
// lengths are an error wrapping rollnet.ErrConfig. t must satisfy
// CheckType, else the error wraps ErrStateType. Equal states give no
// fields and a total of 0.
//
// It is meant for desync forensics, off the hot path: it allocates.
func DiffBytes(t reflect.Type, a, b []byte, max int) (fields []FieldDiff, total int, err error) {
	if err := CheckType(t); err != nil {
		return nil, 0, err
	}
	if uintptr(len(a)) != t.Size() || uintptr(len(b)) != t.Size() {
		return nil, 0, fmt.Errorf("%w: states of %d and %d bytes for a %d-byte %s", errSize, len(a), len(b), t.Size(), t)
	}
	root := t.Name()
	if root == "" {
		root = t.String()
	}
	var visit func(t reflect.Type, path string, off uintptr) (bool, error)
	visit = func(t reflect.Type, path string, off uintptr) (bool, error) {
		end := off + t.Size()
		if bytes.Equal(a[off:end], b[off:end]) {
			return false, nil // nothing differs inside: prune
		}
		k := t.Kind()
		switch {
		case k == reflect.Struct:
			return true, nil
		case k == reflect.Array:
			// walk gives an array's element once; a diff needs the
			// elements that differ, each by its index.
			el := t.Elem()
			for i := range t.Len() {
				p := path + "[" + strconv.Itoa(i) + "]"
				if err := walk(el, p, off+uintptr(i)*el.Size(), visit); err != nil {
					return false, err
				}
			}
			return false, nil
		}
		total++
		if max < 0 || len(fields) < max {
			fields = append(fields, FieldDiff{Path: path, Offset: int(off), Kind: k,
				A: formatScalar(k, a[off:end]), B: formatScalar(k, b[off:end])})
		}
		return false, nil
	}
	err = walk(t, root, 0, visit)
	return fields, total, err
}

// formatScalar formats the little-endian bytes b of a value of kind k.
func formatScalar(k reflect.Kind, b []byte) string {
	le := binary.LittleEndian
	switch k {
	case reflect.Bool:
		if b[0] > 1 {
			return fmt.Sprintf("bool(%#x)", b[0])
		}
		return strconv.FormatBool(b[0] == 1)
	case reflect.Int8:
		return strconv.FormatInt(int64(int8(b[0])), 10)
	case reflect.Int16:
		return strconv.FormatInt(int64(int16(le.Uint16(b))), 10)
	case reflect.Int32:
		return strconv.FormatInt(int64(int32(le.Uint32(b))), 10)
	case reflect.Int64:
		return strconv.FormatInt(int64(le.Uint64(b)), 10)
	case reflect.Uint8:
		return strconv.FormatUint(uint64(b[0]), 10)
	case reflect.Uint16:
		return strconv.FormatUint(uint64(le.Uint16(b)), 10)
	case reflect.Uint32:
		return strconv.FormatUint(uint64(le.Uint32(b)), 10)
	case reflect.Uint64:
		return strconv.FormatUint(le.Uint64(b), 10)
	case reflect.Float32:
		return strconv.FormatFloat(float64(math.Float32frombits(le.Uint32(b))), 'g', -1, 32)
	case reflect.Float64:
		return strconv.FormatFloat(math.Float64frombits(le.Uint64(b)), 'g', -1, 64)
	case reflect.Complex64:
		return strconv.FormatComplex(complex(float64(math.Float32frombits(le.Uint32(b))),
			float64(math.Float32frombits(le.Uint32(b[4:])))), 'g', -1, 64)
	case reflect.Complex128:
		return strconv.FormatComplex(complex(math.Float64frombits(le.Uint64(b)),
			math.Float64frombits(le.Uint64(b[8:]))), 'g', -1, 128)
	}
	return fmt.Sprintf("%x", b) // unreachable: CheckType allows only the kinds above
}

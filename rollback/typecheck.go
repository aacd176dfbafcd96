package rollback

import (
	"fmt"
	"reflect"
)

// CheckType reports whether t may be used as a state (or, by other
// packages, an input): pointer-free, gap-free, made of fixed-width fields,
// and not zero-size. The rules:
//
//   - allowed: bool, int8…int64, uint8…uint64, float32, float64, complex64,
//     complex128, and arrays and structs of allowed types;
//   - refused: int, uint and uintptr (their width depends on the platform),
//     pointers, unsafe.Pointer, slices, maps, strings, channels, funcs and
//     interfaces;
//   - refused: any padding the compiler inserts between fields or at the end
//     of a struct (its bytes are undefined, so the checksum would be too).
//     Spell padding out as an explicit field, e.g. `_ [3]byte`, and keep it
//     zero;
//   - refused: a zero-size type (there is nothing to snapshot).
//
// A nil result means t is accepted. Otherwise the error is a *TypeError
// naming the first offending field, e.g.
// "rollback: World.Players[].Name: string is not allowed", and
// errors.Is(err, ErrStateType) holds.
func CheckType(t reflect.Type) error {
	if t == nil {
		return &TypeError{Path: "<nil>", Reason: "nil type is not allowed"}
	}
	root := t.Name()
	if root == "" {
		root = t.String()
	}
	// Field types first, over the whole type, then layout: a string
	// field is the error to report, not the padding its alignment causes.
	if err := checkType(t, t, root, false); err != nil {
		return err
	}
	if err := checkType(t, t, root, true); err != nil {
		return err
	}
	if t.Size() == 0 {
		return &TypeError{Type: t, Path: root, Reason: "zero-size type is not allowed"}
	}
	return nil
}

// checkType walks t. Without layout it checks kinds; with layout (run only
// once every kind is known to be allowed) it checks for padding.
func checkType(root, t reflect.Type, path string, layout bool) error {
	switch t.Kind() {
	case reflect.Bool,
		reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64,
		reflect.Complex64, reflect.Complex128:
		return nil
	case reflect.Array:
		// Checked even when the length is 0: a [0]string is still a
		// declaration of intent we refuse.
		return checkType(root, t.Elem(), path+"[]", layout)
	case reflect.Struct:
		var next uintptr // offset just past the previous field
		for i := range t.NumField() {
			f := t.Field(i)
			fpath := path + "." + f.Name
			if layout && f.Offset != next {
				return &TypeError{Type: root, Path: fpath, Reason: fmt.Sprintf(
					"%d bytes of compiler padding before this field are not allowed (add an explicit `_ [%d]byte` field)",
					f.Offset-next, f.Offset-next)}
			}
			if err := checkType(root, f.Type, fpath, layout); err != nil {
				return err
			}
			next = f.Offset + f.Type.Size()
		}
		if layout && next != t.Size() {
			return &TypeError{Type: root, Path: path, Reason: fmt.Sprintf(
				"%d bytes of compiler padding at the end of the struct are not allowed (add an explicit `_ [%d]byte` field)",
				t.Size()-next, t.Size()-next)}
		}
		return nil
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		return &TypeError{Type: root, Path: path, Reason: t.String() +
			" is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"}
	default:
		// Pointers, unsafe.Pointer, slices, maps,
		// strings, channels, funcs, interfaces.
		return &TypeError{Type: root, Path: path, Reason: t.String() + " is not allowed"}
	}
}

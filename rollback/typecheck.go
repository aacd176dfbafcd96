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
// A nil result means t is accepted. Otherwise the error names the first
// offending field, e.g.
// "rollback: World.Players[].Name: string is not allowed", and
// errors.Is(err, ErrStateType) holds.
func CheckType(t reflect.Type) error {
	if t == nil {
		return &typeError{Path: "<nil>", Reason: "nil type is not allowed"}
	}
	root := t.Name()
	if root == "" {
		root = t.String()
	}
	// Field types first, over the whole type, then layout: a string
	// field is the error to report, not the padding its alignment causes.
	if err := walk(t, root, 0, func(ft reflect.Type, path string, _ uintptr) (bool, error) {
		return true, checkKind(t, ft, path)
	}); err != nil {
		return err
	}
	if err := walk(t, root, 0, func(ft reflect.Type, path string, _ uintptr) (bool, error) {
		return true, checkPadding(t, ft, path)
	}); err != nil {
		return err
	}
	if t.Size() == 0 {
		return &typeError{Type: t, Path: root, Reason: "zero-size type is not allowed"}
	}
	return nil
}

// walk calls visit for t (at path and offset off) and then, depth first,
// for everything inside it: every struct field, with path+"."+Name and its
// offset, and an array's element type, once, with path+"[]" at the array's
// offset. It goes inside an array or struct only when visit returns true,
// and stops at visit's first error. Checked even when an array's length is
// 0: a [0]string is still a declaration of intent CheckType refuses.
//
// CheckType and Diff both walk with it, so a typeError and a FieldDiff
// name a field by the same path.
func walk(t reflect.Type, path string, off uintptr, visit func(t reflect.Type, path string, off uintptr) (descend bool, err error)) error {
	descend, err := visit(t, path, off)
	if err != nil || !descend {
		return err
	}
	switch t.Kind() {
	case reflect.Array:
		return walk(t.Elem(), path+"[]", off, visit)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := walk(f.Type, path+"."+f.Name, off+f.Offset, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalar reports whether k is one of the fixed-width kinds a state is
// made of.
func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool,
		reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64,
		reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// checkKind refuses t, found at path inside root, unless it is a scalar,
// an array or a struct.
func checkKind(root, t reflect.Type, path string) error {
	switch k := t.Kind(); {
	case scalar(k), k == reflect.Array, k == reflect.Struct:
		return nil
	case k == reflect.Int, k == reflect.Uint, k == reflect.Uintptr:
		return &typeError{Type: root, Path: path, Reason: t.String() +
			" is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"}
	default:
		// Pointers, unsafe.Pointer, slices, maps,
		// strings, channels, funcs, interfaces.
		return &typeError{Type: root, Path: path, Reason: t.String() + " is not allowed"}
	}
}

// checkPadding refuses a struct t, found at path inside root, with
// compiler padding between its fields or at its end (run only once every
// kind is known to be allowed).
func checkPadding(root, t reflect.Type, path string) error {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var next uintptr // offset just past the previous field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Offset != next {
			return &typeError{Type: root, Path: path + "." + f.Name, Reason: fmt.Sprintf(
				"%d bytes of compiler padding before this field are not allowed (add an explicit `_ [%d]byte` field)",
				f.Offset-next, f.Offset-next)}
		}
		next = f.Offset + f.Type.Size()
	}
	if next != t.Size() {
		return &typeError{Type: root, Path: path, Reason: fmt.Sprintf(
			"%d bytes of compiler padding at the end of the struct are not allowed (add an explicit `_ [%d]byte` field)",
			t.Size()-next, t.Size()-next)}
	}
	return nil
}

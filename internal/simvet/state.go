package simvet

import (
	"fmt"
	"go/ast"
	"go/types"
)

// stateArches are the layouts a state's padding is checked under: a
// 64-bit one and a 32-bit one, where int64 and float64 align to 4.
var stateArches = []string{"amd64", "386"}

// checkState reports, at a constructor call, the first thing in the state
// type t the ring refuses at run time (rollback.CheckType): a field of a
// platform-sized or pointer-holding type, compiler padding (on any of
// stateArches), or a zero size. A type parameter is checked where it is
// instantiated.
func (c *checker) checkState(call *ast.CallExpr, t types.Type) {
	if _, ok := t.(*types.TypeParam); ok {
		return
	}
	root := typeName(c.pass, t)
	report := func(path, reason string) {
		c.report(finding{pos: call.Pos(), category: "state", message: fmt.Sprintf("state type %s: %s: %s", root, path, reason)})
	}
	if path, reason := badField(t, root); reason != "" {
		report(path, reason)
		return
	}
	for _, arch := range stateArches {
		sizes := types.SizesFor("gc", arch)
		if path, reason := padding(t, root, sizes); reason != "" {
			report(path, reason+" on "+arch)
			return
		}
	}
	if types.SizesFor("gc", "amd64").Sizeof(t) == 0 {
		report(root, "zero-size type is not allowed (there is nothing to snapshot)")
	}
}

// badField returns the path and reason of the first field of t whose kind
// the ring refuses, or "" if there is none.
func badField(t types.Type, path string) (string, string) {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch u.Kind() {
		case types.Bool, types.Int8, types.Int16, types.Int32, types.Int64,
			types.Uint8, types.Uint16, types.Uint32, types.Uint64,
			types.Float32, types.Float64, types.Complex64, types.Complex128:
			return "", ""
		case types.Int, types.Uint, types.Uintptr:
			return path, u.Name() + " is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"
		}
		return path, u.Name() + " is not allowed"
	case *types.Array:
		return badField(u.Elem(), path+"[]")
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if p, r := badField(f.Type(), path+"."+f.Name()); r != "" {
				return p, r
			}
		}
		return "", ""
	}
	return path, types.TypeString(t, nil) + " is not allowed (pointers, slices, maps, strings, channels, funcs and interfaces are not copied by value)"
}

// padding returns the path and description of the first compiler padding
// in t under sizes, or "" if there is none.
func padding(t types.Type, path string, sizes types.Sizes) (string, string) {
	switch u := t.Underlying().(type) {
	case *types.Array:
		return padding(u.Elem(), path+"[]", sizes)
	case *types.Struct:
		fields := make([]*types.Var, u.NumFields())
		for i := range fields {
			fields[i] = u.Field(i)
		}
		offsets := sizes.Offsetsof(fields)
		var next int64
		for i, f := range fields {
			if gap := offsets[i] - next; gap != 0 {
				return path + "." + f.Name(), fmt.Sprintf("%d bytes of compiler padding before this field (add an explicit `_ [%d]byte` field)", gap, gap)
			}
			if p, r := padding(f.Type(), path+"."+f.Name(), sizes); r != "" {
				return p, r
			}
			next = offsets[i] + sizes.Sizeof(f.Type())
		}
		if gap := sizes.Sizeof(t) - next; gap != 0 {
			return path, fmt.Sprintf("%d bytes of compiler padding at the end of the struct (add an explicit `_ [%d]byte` field)", gap, gap)
		}
	}
	return "", ""
}

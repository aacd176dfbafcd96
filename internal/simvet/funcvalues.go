package simvet

import (
	"go/ast"
	"go/types"
)

// Calls through function values. A call whose target is a variable, a
// table element or a struct field is followed when everything this
// package assigns to it is a function the analyzer can name (a declared
// function, a method value, a function literal, nil, or another such
// variable): package-level tables of collision routines, integrators kept
// in a field. Otherwise the call is reported once, as a warning: its
// target is unknown.

// indexFields records, for every struct field of function type, what this
// package assigns to it: in composite literals (keyed or positional) and
// in assignments x.f = v.
func (c *checker) indexFields() {
	info := c.pass.TypesInfo
	c.fields = map[*types.Var][]ast.Expr{}
	isFunc := func(v *types.Var) bool {
		_, ok := v.Type().Underlying().(*types.Signature)
		return ok
	}
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				st, ok := coreType(info.TypeOf(n)).(*types.Struct)
				if !ok {
					if p, ok := coreType(info.TypeOf(n)).(*types.Pointer); ok {
						st, _ = p.Elem().Underlying().(*types.Struct)
					}
				}
				if st == nil {
					return true
				}
				for i, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() && isFunc(v) {
								c.fields[v] = append(c.fields[v], kv.Value)
							}
						}
						continue
					}
					if i < st.NumFields() && isFunc(st.Field(i)) {
						c.fields[st.Field(i)] = append(c.fields[st.Field(i)], el)
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					return true
				}
				for i, lhs := range n.Lhs {
					sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
					if !ok {
						continue
					}
					if s, ok := info.Selections[sel]; ok && s.Kind() == types.FieldVal {
						if v, ok := s.Obj().(*types.Var); ok && isFunc(v) {
							c.fields[v.Origin()] = append(c.fields[v.Origin()], n.Rhs[i])
						}
					}
				}
			}
			return true
		})
	}
}

// dynamicCall handles a call that is not of a declared function, a
// builtin, a conversion or an interface method: it returns the functions
// and literals its target can be, or ok false if it cannot tell.
func (c *checker) dynamicCall(call *ast.CallExpr) (fns []*types.Func, lits []*ast.FuncLit, what string, ok bool) {
	info := c.pass.TypesInfo
	fun := ast.Unparen(call.Fun)
	what = short(fun)
	var values []ast.Expr
	switch f := fun.(type) {
	case *ast.FuncLit:
		return nil, nil, what, true // its body is part of the caller's
	case *ast.Ident:
		v, isVar := info.Uses[f].(*types.Var)
		if !isVar {
			return nil, nil, what, true
		}
		values = c.assigned[v]
		if fd, i := c.paramOf(v); fd != nil {
			fn, _ := info.Defs[fd.Name].(*types.Func)
			if fn != nil && c.marked[fn] {
				// A marked function's function arguments are roots where
				// it is called.
				return nil, nil, what, true
			}
			if fn == nil || fn.Exported() {
				return nil, nil, what, false // called from packages not seen here
			}
			values = append(values, c.argsAt(fn, i)...)
			if len(values) == 0 {
				return nil, nil, what, true // never called
			}
		}
	case *ast.IndexExpr:
		// table[i]: what the table (a variable) holds.
		id := rootIdent(info, f.X)
		if id == nil {
			return nil, nil, what, false
		}
		v, isVar := info.ObjectOf(id).(*types.Var)
		if !isVar {
			return nil, nil, what, false
		}
		values = c.assigned[v]
	case *ast.SelectorExpr:
		s, isSel := info.Selections[f]
		if !isSel {
			// pkg.V, a package-level variable of another package.
			if v, ok := info.Uses[f.Sel].(*types.Var); ok {
				values = c.assigned[v]
			} else {
				return nil, nil, what, true
			}
		} else if s.Kind() == types.FieldVal {
			values = c.fields[s.Obj().(*types.Var).Origin()]
		} else {
			return nil, nil, what, true // a method: static or through an interface
		}
	default:
		return nil, nil, what, false
	}
	if len(values) == 0 {
		return nil, nil, what, false
	}
	seen := map[*types.Var]bool{}
	var known func(e ast.Expr, depth int) bool
	known = func(e ast.Expr, depth int) bool {
		if depth > 4 {
			return false
		}
		switch x := ast.Unparen(e).(type) {
		case *ast.FuncLit:
			lits = append(lits, x)
			return true
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				if !known(el, depth+1) {
					return false
				}
			}
			return true
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
			id := calleeIdent(x)
			if id == nil {
				return false
			}
			switch obj := info.Uses[id].(type) {
			case *types.Nil:
				return true
			case *types.Func:
				fns = append(fns, obj.Origin())
				return true
			case *types.Var:
				if seen[obj] {
					return true // already being checked
				}
				seen[obj] = true
				vs := c.assigned[obj]
				if obj.IsField() {
					vs = c.fields[obj.Origin()]
				}
				if len(vs) == 0 {
					return false
				}
				for _, v := range vs {
					if !known(v, depth+1) {
						return false
					}
				}
				return true
			}
		}
		return false
	}
	for _, v := range values {
		if !known(v, 0) {
			return nil, nil, what, false
		}
	}
	return fns, lits, what, true
}

// staticCallee reports whether call's target is known without values: a
// declared function or method, a builtin, a conversion.
func staticCallee(info *types.Info, call *ast.CallExpr) bool {
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return true
	}
	id := calleeIdent(call.Fun)
	if id == nil {
		return false
	}
	_, isFunc := info.Uses[id].(*types.Func)
	return isFunc
}

// paramOf returns the declaration v is a parameter of, and its index.
func (c *checker) paramOf(v *types.Var) (*ast.FuncDecl, int) {
	for _, fd := range c.decls {
		if fd.Type.Params == nil || v.Pos() < fd.Type.Params.Pos() || v.Pos() >= fd.Type.Params.End() {
			continue
		}
		i := 0
		for _, f := range fd.Type.Params.List {
			if len(f.Names) == 0 {
				i++
			}
			for _, n := range f.Names {
				if c.pass.TypesInfo.Defs[n] == v {
					return fd, i
				}
				i++
			}
		}
	}
	return nil, 0
}

// argsAt returns the argument i of every call of fn in this package.
func (c *checker) argsAt(fn *types.Func, i int) []ast.Expr {
	var out []ast.Expr
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && calleeFunc(c.pass.TypesInfo, call) == fn && i < len(call.Args) {
				out = append(out, call.Args[i])
			}
			return true
		})
	}
	return out
}

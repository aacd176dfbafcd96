package simvet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer is the determinism check. See the package doc for its rules.
var Analyzer = &analysis.Analyzer{
	Name: "rollnetvet",
	Doc: `report code that can make a rollback simulation non-deterministic

The simulation is every function passed as the simulate argument of a
rollnet session, authority host or client, spectator, replayer or sync test,
every function marked //rollnet:simulate, and everything they call within the
module. In them it reports map ranges, the wall clock, the environment, files
and the network, global random numbers, goroutines, channels and select, float
multiply-adds Go may fuse into one FMA, package-level state, unsafe, reflect
and calls through interfaces; and it checks the state type of every
constructor like the ring does at run time. A //rollnet:ok comment with a
reason silences a finding on its line or the next one, or in the function
whose doc comment holds it.`,
	URL:       "https://pkg.go.dev/github.com/rollnet/rollnet/cmd/rollnet-vet",
	Run:       run,
	FactTypes: []analysis.Fact{new(hazardsFact), new(simulateFact), new(writtenFact), new(productFact)},
}

// ignoreOK is the -ignore-ok flag: report what //rollnet:ok comments
// silence, to audit them.
var ignoreOK bool

// showInfo is the -info flag: report the informational findings too.
var showInfo bool

func init() {
	Analyzer.Flags.BoolVar(&showInfo, "info", false, "also report package state the simulation cannot carry between frames (write-only counters, scratch cleared before use, lazy setup), set apart as informational")
	Analyzer.Flags.BoolVar(&ignoreOK, "ignore-ok", false, "also report the findings //rollnet:ok comments silence (to audit them)")
}

// maxCarried is how many findings a function's fact carries to the
// packages that import it; the rest are counted.
const maxCarried = 8

// hazardsFact is on every function of the module whose body, or anything
// it calls, has a finding: what a package that reaches it reports at the
// call.
type hazardsFact struct {
	Findings []Carried
	More     bool // there are findings beyond Findings, not carried
}

// Carried is a finding carried in a fact: where it is (a module-relative
// file:line:col) and what it says.
type Carried struct{ Where, Message string }

// simulateFact marks a function declared with //rollnet:simulate (its
// own package reports its findings at their lines).
type simulateFact struct{ Marked bool }

// writtenFact marks a package-level variable that its package writes
// outside init.
type writtenFact struct{ Written bool }

// productFact marks a function that returns an unconverted float product:
// once inlined, an add of its result may be fused.
type productFact struct{ Product bool }

func (*hazardsFact) AFact()  {}
func (*simulateFact) AFact() {}
func (*writtenFact) AFact()  {}
func (*productFact) AFact()  {}

func (f *hazardsFact) String() string {
	if f.More {
		return fmt.Sprintf("hazards %d+", len(f.Findings))
	}
	return fmt.Sprintf("hazards %d", len(f.Findings))
}
func (*simulateFact) String() string { return "simulate" }
func (*writtenFact) String() string  { return "written" }
func (*productFact) String() string  { return "product" }

// finding is one report in this package.
type finding struct {
	pos      token.Pos
	category string
	message  string
	fixes    []analysis.SuggestedFix
	also     token.Pos  // the add a product feeds (fma), if on another line
	v        *types.Var // the package-level variable (global)
	write    bool       // a write of v
	lazy     bool       // a write of v in a once-only lazy setup
}

// ref is a function a body references (calls or takes as a value).
type ref struct {
	fn  *types.Func
	pos token.Pos
}

// unit is what scanning one body found.
type unit struct {
	findings []finding
	refs     []ref
	lits     []*ast.FuncLit // function literals it calls through a value (a table, a field)

	fusedDone bool                // the compiler's fused lines were added
	cleared   map[*types.Var]bool // package-level variables its first statement naming them clears
}

// checker holds one pass's indexes.
type checker struct {
	pass     *analysis.Pass
	modPath  string
	decls    map[*types.Func]*ast.FuncDecl
	units    map[ast.Node]*unit        // scanned bodies, by *ast.FuncDecl or *ast.FuncLit
	assigned map[*types.Var][]ast.Expr // every value assigned to a variable
	written  map[*types.Var]bool       // package-level variables written here outside init
	products map[*types.Func]bool      // local functions returning an unconverted float product
	marked   map[*types.Func]bool      // local functions marked //rollnet:simulate
	sup      *suppressions
	reported map[string]bool              // position+message already reported
	compiled map[ast.Node][]*compiledSite // fused lines by the function they were compiled in
	pin      *ast.CallExpr                // the inlined call a trace follows (traceFused)
	fields   map[*types.Var][]ast.Expr    // what this package assigns to struct fields of function type
	covered  map[string]bool              // file:line the source fma rule reports (fmaCovered)
	modTypes []*types.Named               // the module's named types this package sees (implementations)
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{
		pass:     pass,
		decls:    map[*types.Func]*ast.FuncDecl{},
		units:    map[ast.Node]*unit{},
		assigned: map[*types.Var][]ast.Expr{},
		written:  map[*types.Var]bool{},
		products: map[*types.Func]bool{},
		marked:   map[*types.Func]bool{},
		reported: map[string]bool{},
	}
	if pass.Module != nil {
		c.modPath = pass.Module.Path
	}
	if c.modPath == "" && isStd(pass.Pkg.Path()) {
		return nil, nil // the standard library is judged by the deny lists
	}
	c.sup = parseSuppressions(pass)
	for _, d := range c.sup.bad {
		c.report(finding{pos: d, category: "directive", message: "//rollnet:ok needs a reason: //rollnet:ok why this is deterministic"})
	}
	c.index()
	c.indexFields()
	c.loadCompiled()
	c.exportFacts()
	c.findRoots()
	return nil, nil
}

// isStd reports whether path looks like a standard library package (its
// first element has no dot).
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// inModule reports whether pkg belongs to the module being checked (any
// non-standard package when the module is unknown).
func (c *checker) inModule(pkg *types.Package) bool {
	if pkg == nil {
		return false
	}
	p := pkg.Path()
	if c.modPath == "" {
		return !isStd(p)
	}
	return p == c.modPath || strings.HasPrefix(p, c.modPath+"/")
}

// index records the package's function declarations, its directives, what
// every variable is assigned, which package-level variables are written,
// and which functions return a float product.
func (c *checker) index() {
	info := c.pass.TypesInfo
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			fn, _ := info.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			c.decls[fn] = fd
			if hasDirective(fd.Doc, simulateDirective) {
				c.marked[fn] = true
			}
			if fd.Body != nil && returnsProduct(info, fd) {
				c.products[fn] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil && n.Name.Name == "init" {
					c.indexAssigns(n, false)
					return false
				}
			case *ast.AssignStmt, *ast.IncDecStmt, *ast.ValueSpec, *ast.RangeStmt:
				c.indexAssigns(n, true)
			}
			return true
		})
	}
}

// indexAssigns records n's assignments; writes of package-level variables
// count only when global is set (not in init).
func (c *checker) indexAssigns(n ast.Node, global bool) {
	info := c.pass.TypesInfo
	mark := func(lhs ast.Expr) {
		if !global {
			return
		}
		if v := packageVar(info, rootIdent(info, lhs)); v != nil {
			c.written[v] = true
		}
	}
	switch n := n.(type) {
	case *ast.FuncDecl:
		// init: only the assignments to locals matter.
		ast.Inspect(n, func(m ast.Node) bool {
			if m != n {
				switch m.(type) {
				case *ast.AssignStmt, *ast.ValueSpec:
					c.indexAssigns(m, false)
				}
			}
			return true
		})
	case *ast.AssignStmt:
		for i, lhs := range n.Lhs {
			if n.Tok != token.DEFINE {
				mark(lhs)
			}
			if id, ok := lhs.(*ast.Ident); ok && len(n.Lhs) == len(n.Rhs) {
				if v, ok := info.ObjectOf(id).(*types.Var); ok {
					c.assigned[v] = append(c.assigned[v], n.Rhs[i])
				}
			}
		}
	case *ast.IncDecStmt:
		mark(n.X)
	case *ast.RangeStmt:
		if n.Tok == token.ASSIGN {
			if n.Key != nil {
				mark(n.Key)
			}
			if n.Value != nil {
				mark(n.Value)
			}
		}
	case *ast.ValueSpec:
		for i, id := range n.Names {
			if v, ok := info.Defs[id].(*types.Var); ok && i < len(n.Values) && len(n.Names) == len(n.Values) {
				c.assigned[v] = append(c.assigned[v], n.Values[i])
			}
		}
	}
}

// exportFacts exports the facts of this package's functions and variables.
func (c *checker) exportFacts() {
	for v := range c.written {
		if v.Pkg() == c.pass.Pkg {
			c.pass.ExportObjectFact(v, &writtenFact{Written: true})
		}
	}
	for fn := range c.products {
		c.pass.ExportObjectFact(fn, &productFact{Product: true})
	}
	for fn := range c.marked {
		c.pass.ExportObjectFact(fn, &simulateFact{Marked: true})
	}
	// Every function's findings and those of everything it reaches,
	// to a fixed point over the package's call graph.
	carried := map[*types.Func]*hazardsFact{}
	fns := make([]*types.Func, 0, len(c.decls))
	for fn, d := range c.decls {
		if d.Recv == nil && d.Name.Name == "init" {
			continue // nothing can call it
		}
		fns = append(fns, fn)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Pos() < fns[j].Pos() })
	for _, fn := range fns {
		h := &hazardsFact{}
		u := c.scan(c.decls[fn])
		bodies := []*unit{u}
		for _, lit := range u.lits {
			bodies = append(bodies, c.scan(lit))
		}
		for _, b := range bodies {
			for _, f := range b.findings {
				if !c.sup.covers(c.pass.Fset, f.pos) {
					h.add(Carried{Where: c.where(f.pos), Message: f.message})
				}
			}
		}
		carried[fn] = h
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range fns {
			h := carried[fn]
			before, more := len(h.Findings), h.More
			u := c.scan(c.decls[fn])
			refs := u.refs
			for _, lit := range u.lits {
				refs = append(refs, c.scan(lit).refs...)
			}
			for _, r := range refs {
				var from *hazardsFact
				if local, ok := carried[r.fn]; ok {
					from = local
				} else if c.inModule(r.fn.Pkg()) && r.fn.Pkg() != c.pass.Pkg {
					from = new(hazardsFact)
					if !c.pass.ImportObjectFact(r.fn, from) {
						continue
					}
				} else {
					continue
				}
				if from == h {
					continue
				}
				for _, f := range from.Findings {
					h.add(f)
				}
				h.More = h.More || from.More
			}
			if len(h.Findings) != before || h.More != more {
				changed = true
			}
		}
	}
	for _, fn := range fns {
		if h := carried[fn]; len(h.Findings) > 0 {
			c.pass.ExportObjectFact(fn, h)
		}
	}
}

// add adds f unless it is there; past maxCarried it sets More. Both
// only grow, so the fixed point ends.
func (h *hazardsFact) add(f Carried) {
	for _, g := range h.Findings {
		if g == f {
			return
		}
	}
	if len(h.Findings) < maxCarried {
		h.Findings = append(h.Findings, f)
		return
	}
	h.More = true
}

// where renders pos as a module-relative file:line:col.
func (c *checker) where(pos token.Pos) string {
	p := c.pass.Fset.Position(pos)
	dir := strings.TrimSuffix(c.pass.Pkg.Path(), "_test")
	if c.modPath != "" {
		dir = strings.TrimPrefix(strings.TrimPrefix(dir, c.modPath), "/")
	}
	file := filepath.Base(p.Filename)
	if dir != "" {
		file = dir + "/" + file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Column)
}

// report reports f once, unless a //rollnet:ok covers it.
func (c *checker) report(f finding) {
	key := fmt.Sprintf("%d %s", f.pos, f.message)
	if c.reported[key] || (f.category != "directive" && c.sup.covers(c.pass.Fset, f.pos)) {
		return
	}
	c.reported[key] = true
	c.pass.Report(analysis.Diagnostic{Pos: f.pos, Category: f.category, Message: f.message, SuggestedFixes: f.fixes})
}

// findRoots finds the simulations this package names (functions marked
// //rollnet:simulate, simulate arguments of the constructors, function
// values given to a marked function) and reports what they reach. It also
// checks the state type of every constructor call.
func (c *checker) findRoots() {
	info := c.pass.TypesInfo
	var roots []ast.Node // *ast.FuncLit, or *ast.FuncDecl of a local function
	var remote []ref     // functions of other packages of the module
	seenExpr := map[ast.Expr]bool{}
	var addExpr func(e ast.Expr)
	addExpr = func(e ast.Expr) {
		if seenExpr[e] {
			return
		}
		seenExpr[e] = true
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				roots = append(roots, n)
				return false
			case *ast.Ident:
				switch obj := info.Uses[n].(type) {
				case *types.Func:
					fn := obj.Origin()
					if d, ok := c.decls[fn]; ok {
						roots = append(roots, d)
					} else if c.inModule(fn.Pkg()) {
						remote = append(remote, ref{fn: fn, pos: n.Pos()})
					}
				case *types.Var:
					for _, v := range c.assigned[obj] {
						addExpr(v)
					}
				}
			}
			return true
		})
	}
	for fn := range c.marked {
		roots = append(roots, c.decls[fn])
	}
	var initial []ast.Expr // expressions that build an initial state
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			// *x.State() = expr, before the first frame, sets the
			// initial state.
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
				if star, ok := ast.Unparen(as.Lhs[0]).(*ast.StarExpr); ok {
					if call, ok := ast.Unparen(star.X).(*ast.CallExpr); ok {
						if fn := calleeFunc(info, call); fn != nil && fn.Name() == "State" && isRollnet(fn) && fn.Signature().Recv() != nil {
							initial = append(initial, as.Rhs[0])
						}
					}
				}
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			id := calleeIdent(call.Fun)
			if id == nil {
				return true
			}
			fn, ok := info.Uses[id].(*types.Func)
			if !ok {
				return true
			}
			fn = fn.Origin()
			if fn.Pkg() == nil {
				return true
			}
			if isInitialSetter(fn) && len(call.Args) == 1 {
				initial = append(initial, call.Args[0])
				return true
			}
			if ctor, ok := constructorOf(fn.Pkg().Path(), fn.Name()); ok && fn.Signature().Recv() == nil {
				if inst, ok := info.Instances[id]; ok && ctor.State < inst.TypeArgs.Len() {
					c.checkState(call, inst.TypeArgs.At(ctor.State))
				}
				if ctor.Simulate >= 0 && ctor.Simulate < len(call.Args) {
					addExpr(call.Args[ctor.Simulate])
				}
				return true
			}
			if c.isMarked(fn) {
				for _, a := range call.Args {
					if _, ok := info.TypeOf(a).Underlying().(*types.Signature); ok {
						addExpr(a)
					}
				}
			}
			return true
		})
	}
	// The initial state: every function its expression names is checked
	// as the simulation is, and the expression itself.
	for _, e := range initial {
		addExpr(e)
		u := c.scanExpr(e)
		for _, f := range u.findings {
			if f.category == "dynamic" {
				// A function value the state is built with (a library's
				// hook, like the simulate it forwards) is checked where it
				// is given a function, not where it is called.
				continue
			}
			c.report(f)
		}
		for _, r := range u.refs {
			if d, ok := c.decls[r.fn]; ok {
				roots = append(roots, d)
			} else if c.inModule(r.fn.Pkg()) {
				remote = append(remote, r)
			}
		}
	}
	c.reach(roots, remote)
}

// isRollnet reports whether fn is declared in one of rollnet's packages.
func isRollnet(fn *types.Func) bool {
	p := fn.Pkg()
	return p != nil && (p.Path() == rollnetModule || strings.HasPrefix(p.Path(), rollnetModule+"/"))
}

// isInitialSetter reports whether fn is a rollnet SetInitialState method.
func isInitialSetter(fn *types.Func) bool {
	return fn.Name() == "SetInitialState" && fn.Signature().Recv() != nil && isRollnet(fn)
}

// isMarked reports whether fn is marked //rollnet:simulate, here or in
// its own package.
func (c *checker) isMarked(fn *types.Func) bool {
	if c.marked[fn] {
		return true
	}
	return fn.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(fn, new(simulateFact))
}

// reach reports the findings of every body reachable from roots, and, at
// the reference, those carried by the facts of other packages' functions.
func (c *checker) reach(roots []ast.Node, remote []ref) {
	seen := map[ast.Node]bool{}
	parent := map[ast.Node]ast.Node{} // how each body was reached
	var globals []reachedGlobal       // package-state findings, classified at the end
	work := append([]ast.Node(nil), roots...)
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		u := c.scan(n)
		for _, f := range u.findings {
			if f.category == "fused" {
				f.message += " (reached through " + c.chain(n, parent) + ")"
				if c.fusedReported(f) {
					continue
				}
			}
			if f.v != nil {
				globals = append(globals, reachedGlobal{f, u})
				continue
			}
			c.report(f)
		}
		for _, lit := range u.lits {
			if _, ok := parent[lit]; !ok && !seen[lit] {
				parent[lit] = n
			}
			work = append(work, lit)
		}
		for _, r := range u.refs {
			if d, ok := c.decls[r.fn]; ok {
				if _, ok := parent[d]; !ok && !seen[d] {
					parent[d] = n
				}
				work = append(work, d)
			} else if c.inModule(r.fn.Pkg()) {
				remote = append(remote, r)
			}
		}
	}
	c.reportGlobals(globals)
	carriedSeen := map[Carried]bool{}
	for _, r := range remote {
		if r.fn.Pkg() == c.pass.Pkg || c.isMarked(r.fn) {
			continue // reported at their lines by their own package
		}
		var h hazardsFact
		if !c.pass.ImportObjectFact(r.fn, &h) {
			continue
		}
		name := r.fn.Pkg().Name() + "." + r.fn.Name()
		if recv := r.fn.Signature().Recv(); recv != nil {
			name = r.fn.Pkg().Name() + "." + recvName(recv.Type()) + "." + r.fn.Name()
		}
		for _, f := range h.Findings {
			if carriedSeen[f] {
				continue
			}
			carriedSeen[f] = true
			c.report(finding{pos: r.pos, category: "reached", message: fmt.Sprintf("%s: %s (reached through %s)", f.Where, f.Message, name)})
		}
		if h.More {
			c.report(finding{pos: r.pos, category: "reached", message: fmt.Sprintf("%s reaches more findings than these: mark it //rollnet:simulate to see each at its line", name)})
		}
	}
}

// reachedGlobal is a package-state finding and the body it is in.
type reachedGlobal struct {
	f finding
	u *unit
}

// reportGlobals reports package-state findings, setting apart as
// informational (reported only with -info) the variables the simulation
// cannot carry state through: a counter it only writes, a scratch buffer
// every body clears before using it, a value set up once, lazily.
func (c *checker) reportGlobals(globals []reachedGlobal) {
	byVar := map[*types.Var][]reachedGlobal{}
	var order []*types.Var
	for _, g := range globals {
		if byVar[g.f.v] == nil {
			order = append(order, g.f.v)
		}
		byVar[g.f.v] = append(byVar[g.f.v], g)
	}
	for _, v := range order {
		gs := byVar[v]
		reads, lazy, cleared, lazyWrites := false, true, true, 0
		for _, g := range gs {
			reads = reads || !g.f.write
			if g.f.write && !g.f.lazy {
				lazy = false
			}
			if g.f.write && g.f.lazy {
				lazyWrites++
			}
			if !g.u.cleared[v] {
				cleared = false
			}
		}
		class := ""
		switch {
		case !reads:
			class = "a counter the simulation writes and never reads"
		case cleared:
			class = "scratch every function clears before using it"
		case lazy && lazyWrites > 0:
			class = "set up once, lazily, the same on every peer"
		}
		for _, g := range gs {
			f := g.f
			if class != "" {
				if !showInfo {
					continue
				}
				f.category = "info"
				f.message = "info: " + v.Name() + " is " + class + ": " + f.message
			}
			c.report(f)
		}
	}
}

// chain names the functions from a root to n.
func (c *checker) chain(n ast.Node, parent map[ast.Node]ast.Node) string {
	var names []string
	for m, i := n, 0; m != nil && i < 16; m, i = parent[m], i+1 {
		names = append(names, c.nodeName(m))
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return strings.Join(names, " → ")
}

// fusedReported reports whether a fused line was already reported at
// f's position (reached another way, or inlined into another function),
// and records it.
func (c *checker) fusedReported(f finding) bool {
	key := fmt.Sprintf("%d", f.pos)
	if c.reported["fused "+key] {
		return true
	}
	c.reported["fused "+key] = true
	return false
}

// recvName names a method's receiver type without its package.
func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return types.TypeString(t, func(*types.Package) string { return "" })
}

// calleeIdent returns the identifier naming a call's function: f, pkg.f,
// x.m, f[T], pkg.f[T, U].
func calleeIdent(fun ast.Expr) *ast.Ident {
	for {
		switch f := fun.(type) {
		case *ast.ParenExpr:
			fun = f.X
		case *ast.IndexExpr:
			fun = f.X
		case *ast.IndexListExpr:
			fun = f.X
		case *ast.Ident:
			return f
		case *ast.SelectorExpr:
			return f.Sel
		default:
			return nil
		}
	}
}

// rootIdent returns the variable an assignment's left side writes into:
// v for v, v.f, v[i], *v, pkg.v.f.
func rootIdent(info *types.Info, e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			return nil // *p writes through a pointer: p itself is only read
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				if _, ok := info.Uses[id].(*types.PkgName); ok {
					return x.Sel
				}
			}
			if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal {
				if _, ptr := sel.Recv().Underlying().(*types.Pointer); ptr {
					// p.f writes through a pointer: the variable p itself
					// is only read.
					return nil
				}
			}
			e = x.X
		case *ast.Ident:
			return x
		default:
			return nil
		}
	}
}

// packageVar returns id's object if it is a package-level variable.
func packageVar(info *types.Info, id *ast.Ident) *types.Var {
	if id == nil {
		return nil
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	return v
}

package main

import "fmt"

// entityRows are the entity mode's (authority/entity, issue 38): the
// cube scene's rate beside its uncompressed rate, and the big world's
// bytes a client beside a smaller room's and a smaller world's, and its
// host CPU a client beside the copy-and-CRC floor.
func entityRows() []row {
	out := []row{{Name: "entity cubes: kbps a client", Bench: "AuthorityCubes", Unit: "kbps/client",
		Base: "AuthorityCubes", BaseUnit: "uncompressed-kbps", BaseName: "uncompressed"}}
	world := func(entities, clients int) string {
		return fmt.Sprintf("AuthorityBigWorld/entities=%d/clients=%d", entities, clients)
	}
	out = append(out, row{Name: "entity world: B/s, 1000 ent, 16 cl", Bench: world(1000, 16), Unit: "B/s/client",
		NoBase: "the smaller world the 10,000-entity one is divided by"})
	out = append(out, row{Name: "entity world: B/s, 10k ent, 16 cl", Bench: world(10000, 16), Unit: "B/s/client",
		Base: world(1000, 16), BaseName: "1,000 entities"})
	for _, n := range []int{64, 256} {
		out = append(out, row{Name: fmt.Sprintf("entity world: B/s, 10k ent, %d cl", n), Bench: world(10000, n), Unit: "B/s/client",
			Base: world(10000, 16), BaseName: "16 clients"})
	}
	for _, n := range []int{16, 64, 256} {
		out = append(out, row{Name: fmt.Sprintf("entity world: host CPU/cl, %d cl", n), Bench: world(10000, n), Unit: "cpu-ns/client-tick",
			Base: world(10000, n), BaseUnit: "floor-ns/client-tick", BaseName: "touch its set"})
	}
	return out
}

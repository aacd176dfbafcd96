package entity_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/rollnet/rollnet/authority/entity"
)

// A world of 100 entities on a line; the client sees those within 10 m
// of the origin, each position quantized to a millimetre.
func Example() {
	var (
		slots [100]entity.Slot
		pos   [100]float64
	)
	for i := range slots {
		entity.Spawn(slots[:])
		pos[i] = float64(i) * 0.5
	}
	grid := entity.NewGrid(10, len(slots))
	host, err := entity.NewHost(entity.HostConfig{
		Capacity: len(slots),
		Size:     4,
		Encode: func(dst []byte, i int) {
			binary.LittleEndian.PutUint32(dst, uint32(int32(math.Round(pos[i]*1000))))
		},
		Interest: func(client int, dst []int32) []int32 {
			return grid.AppendNear(dst, 0, 0, 10)
		},
	})
	if err != nil {
		panic(err)
	}
	client, _ := entity.NewClient(entity.ClientConfig{Capacity: len(slots), Size: 4})
	id := host.AddClient()
	buf := make([]byte, 0, 1500)
	for range 10 { // no loss: each update arrives, each ack returns
		grid.Clear()
		for i := range slots {
			grid.Insert(i, float32(pos[i]), 0)
		}
		host.Tick(slots[:])
		if b := host.Append(buf[:0], id); len(b) > 0 {
			if err := client.Receive(b); err != nil {
				panic(err)
			}
		}
		if err := host.Receive(id, client.AppendAck(buf[:0])); err != nil {
			panic(err)
		}
	}
	s, _ := client.Entity(7)
	fmt.Println("entities held:", client.Stats().Entities)
	fmt.Println("entity 7 at", float64(int32(binary.LittleEndian.Uint32(s.Data)))/1000, "m")
	fmt.Println("digests agree:", host.Stats(id).Digest == client.Stats().Digest)
	// Output:
	// entities held: 21
	// entity 7 at 3.5 m
	// digests agree: true
}

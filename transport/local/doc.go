// Package local is an in-memory network of named endpoints, each a
// transport.Transport, with impairments you can trust in tests.
//
// Each direction of each link has its own Link: latency and jitter (a
// uniform spread of each datagram's delay), independent loss, burst loss (a
// two-state Gilbert-Elliott model), duplication, reordering (a datagram held
// back so that later ones overtake it), and an Ordered mode (jitter delays a
// datagram past its predecessor but never ahead of it). Partition and Heal
// black out both directions between two endpoints.
//
// # Time and determinism
//
// The network reads the clock given as Config.Now and starts no goroutines.
// Send computes a datagram's delivery time; the datagram is delivered when
// the receiver calls Receive with the clock at or past that time. Datagrams
// due at the same time arrive in the order they were sent. Each link
// direction draws from its own splitmix64 generator, seeded from
// Config.Seed and the two endpoint names, a fixed number of draws per
// datagram: the same seed and the same calls at the same clock readings give
// the same deliveries, byte for byte, and traffic on one link never changes
// another link's randomness. With Config.Now nil the network runs on the
// wall clock (the real-time mode for demos), through the same code.
//
// # Memory
//
// Each endpoint owns a bounded queue: Config.QueueLen packet buffers of
// transport.MaxDatagram bytes, allocated once by Network.Endpoint, shared
// by one lane per sender. Receive takes due datagrams from the lanes round
// robin. A datagram that finds the queue full takes the newest slot of the
// sender holding the most, or is dropped when its own sender holds the most
// (and counted either way): a flooding sender fills only its share, and
// the queue never grows. Endpoint.Expect (transport.Expecter) drops
// datagrams from senders the session does not expect before they take a
// slot, until ExpectAnyone opens the gate again. Send and Receive copy and do not allocate (the first datagram on a
// link direction allocates that direction's state and lane, once).
//
// # Concurrency
//
// A Network and its endpoints are safe for concurrent use; one mutex guards
// the whole network.
package local

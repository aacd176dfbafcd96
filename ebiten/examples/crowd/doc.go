// Command crowd is a world of 10,000 wandering entities and up to 64
// players on Ebitengine, played in rollnet's entity mode: the host runs
// the whole world and sends each player only the entities within its
// sight, within its budget; each player predicts its own avatar and draws
// the others at one render time. By default one process runs the host and
// a room of bots over an in-process network, and the window is one more
// player; -mode host and -mode client play across processes through a
// signaling server. See README.md.
package main

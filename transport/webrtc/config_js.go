//go:build js

package webrtc

// In a browser, Config.Net and Config.LoggerFactory are ignored (the page's
// RTCPeerConnection has its own network and logs), and their types are
// any: pion's interface types would link pion/logging, the log package and
// pion/transport's initialisers into every browser game, 164 kB of the
// pong's wasm (42 kB gzipped), for two fields nothing reads.
type (
	pionNet           = any
	pionLoggerFactory = any
)

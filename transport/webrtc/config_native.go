//go:build !js

package webrtc

import (
	"github.com/pion/logging"
	ptransport "github.com/pion/transport/v5"
)

// The types of Config.Net and Config.LoggerFactory: pion's (config_js.go
// has the browser's).
type (
	pionNet           = ptransport.Net
	pionLoggerFactory = logging.LoggerFactory
)

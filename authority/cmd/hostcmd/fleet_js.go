//go:build js

package hostcmd

import (
	"context"
	"errors"
	"log/slog"
)

func runFleet(context.Context, options, game, string, *slog.Logger, func(string)) error {
	return errors.New("rollnet-host: -fleet is not built for GOOS=js")
}

//go:build js

package dedicated

import (
	"context"
	"errors"
	"log/slog"
)

func runFleet(context.Context, options, Game, string, *slog.Logger, func(string)) error {
	return errors.New("rollnet-host: -fleet is not built for GOOS=js")
}

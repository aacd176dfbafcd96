package turn

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/pion/logging"
)

// pionLogs sends pion's logs to slog. pion logs what a client's packets
// cause (a refused permission, a malformed request) at Info and below, so
// those go to Debug: a client cannot flood the server's log. pion's
// warnings and errors are the relay's own trouble and go to Warn.
type pionLogs struct{ log *slog.Logger }

func (f pionLogs) NewLogger(scope string) logging.LeveledLogger {
	return pionLogger{f.log.With("pion", scope)}
}

type pionLogger struct{ log *slog.Logger }

func (l pionLogger) logf(level slog.Level, format string, args ...any) {
	if l.log.Enabled(context.Background(), level) {
		l.log.Log(context.Background(), level, fmt.Sprintf(format, args...))
	}
}

func (l pionLogger) Trace(msg string)                  { l.logf(slog.LevelDebug-4, "%s", msg) }
func (l pionLogger) Tracef(format string, args ...any) { l.logf(slog.LevelDebug-4, format, args...) }
func (l pionLogger) Debug(msg string)                  { l.logf(slog.LevelDebug, "%s", msg) }
func (l pionLogger) Debugf(format string, args ...any) { l.logf(slog.LevelDebug, format, args...) }
func (l pionLogger) Info(msg string)                   { l.logf(slog.LevelDebug, "%s", msg) }
func (l pionLogger) Infof(format string, args ...any)  { l.logf(slog.LevelDebug, format, args...) }
func (l pionLogger) Warn(msg string)                   { l.logf(slog.LevelWarn, "%s", msg) }
func (l pionLogger) Warnf(format string, args ...any)  { l.logf(slog.LevelWarn, format, args...) }
func (l pionLogger) Error(msg string)                  { l.logf(slog.LevelWarn, "%s", msg) }
func (l pionLogger) Errorf(format string, args ...any) { l.logf(slog.LevelWarn, format, args...) }

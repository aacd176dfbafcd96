//go:build !js

package fleetlocal

import (
	natsserver "github.com/nats-io/nats-server/v2/server"
)

// users are the NATS users of a fleet named "rollnet" (its signaling
// instances' set named "rollnet" too) with hosts hosts, with the
// permissions fleet/nats-fleet.conf gives them (package fleet's trust
// model; TestUsersAsConfigured holds the two together): "host-<id>" per
// host (its own record and drain order), "placer" (room keys and host
// records, and the signaling cluster), "operator" (drain orders).
// password gives each user's password.
func users(hosts []string, password func(user string) string) []*natsserver.User {
	const b, kv = "rollnet-fleet", "KV_rollnet-fleet"
	user := func(name string, pub, sub []string) *natsserver.User {
		return &natsserver.User{Username: name, Password: password(name), Permissions: &natsserver.Permissions{
			Publish: &natsserver.SubjectPermission{Allow: pub}, Subscribe: &natsserver.SubjectPermission{Allow: sub}}}
	}
	var users []*natsserver.User
	for _, id := range hosts {
		users = append(users, user("host-"+id, []string{
			"$KV." + b + ".host." + id,
			"$JS.API.STREAM.INFO." + kv,
			"$JS.API.DIRECT.GET." + kv + ".$KV." + b + ".host." + id,
			"$JS.API.DIRECT.GET." + kv + ".$KV." + b + ".drain." + id,
		}, []string{"_INBOX.>"}))
	}
	const rooms = "KV_rollnet-rooms"
	users = append(users, user("placer", []string{
		"$KV." + b + ".host.*",
		"$KV." + b + ".room.*.*",
		"$JS.API.STREAM.INFO." + kv,
		"$JS.API.STREAM.CREATE." + kv,
		"$JS.API.INFO",
		"$JS.API.DIRECT.GET." + kv + ".>",
		"$JS.API.CONSUMER.CREATE." + kv + ".>",
		"$JS.API.CONSUMER.DELETE." + kv + ".>",
		"$JS.FC." + kv + ".>",
		"rollnet.>",
		"$KV.rollnet-rooms.>",
		"$JS.API.STREAM.INFO." + rooms,
		"$JS.API.STREAM.CREATE." + rooms,
		"$JS.API.STREAM.UPDATE." + rooms,
		"$JS.API.DIRECT.GET." + rooms + ".>",
		"$JS.API.CONSUMER.CREATE." + rooms + ".>",
		"$JS.API.CONSUMER.DELETE." + rooms + ".>",
		"$JS.FC." + rooms + ".>",
	}, []string{"_INBOX.>", "rollnet.>"}))
	users = append(users, user("operator", []string{
		"$KV." + b + ".drain.*",
		"$JS.API.STREAM.INFO." + kv,
		"$JS.API.STREAM.CREATE." + kv,
		"$JS.API.INFO",
		"$JS.API.DIRECT.GET." + kv + ".>",
	}, []string{"_INBOX.>"}))
	return users
}

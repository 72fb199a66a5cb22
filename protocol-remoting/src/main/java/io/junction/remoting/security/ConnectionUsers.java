package io.junction.remoting.security;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.PolicyWatch;
import io.junction.tenancy.Principal;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.HashMap;
import java.util.Map;

/**
 * The users each connection has acted as, followed: when one of them is deleted, disabled or moved to another
 * namespace, the connection is closed. Remoting has no way to tell a client why; its next request on a new connection
 * is refused with NO_PERMISSION, and a pull or POP parked for it on the old one is dropped with the connection.
 *
 * <p>Requests are signed one by one, so a connection may act for several users (rarely more than one); each is
 * registered once, on its first allowed request, and the registrations end with the connection. Runs on the
 * connection's event loop.
 */
public final class ConnectionUsers {
    /** Users followed per connection at most; requests of further users are still checked one by one. */
    static final int MAX_USERS_PER_CONNECTION = 16;

    private static final AttributeKey<Map<String, PolicyWatch>> WATCHES =
            AttributeKey.valueOf("junction.remoting.users");

    private final AccessControl access;

    public ConnectionUsers(final AccessControl access) {
        this.access = access;
    }

    /** {@code principal} made an allowed request on {@code channel} (on the channel's event loop). */
    public void actingAs(final Channel channel, final Principal principal) {
        Map<String, PolicyWatch> watches = channel.attr(WATCHES).get();
        if (watches != null && watches.containsKey(principal.name())) {
            return;
        }
        if (watches == null) {
            final Map<String, PolicyWatch> created = new HashMap<>();
            watches = created;
            channel.attr(WATCHES).set(created);
            channel.closeFuture().addListener(f -> channel.eventLoop().execute(() -> {
                created.values().forEach(PolicyWatch::cancel);
                created.clear();
            }));
        }
        if (watches.size() >= MAX_USERS_PER_CONNECTION || !channel.isOpen()) {
            return;
        }
        watches.put(principal.name(), access.watch(principal, channel::close)); // close() may be called from any thread
    }
}

package io.junction.remoting.security;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.PolicyWatch;
import io.junction.tenancy.PolicyWatcher;
import io.junction.tenancy.Principal;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.HashMap;
import java.util.Map;

/**
 * The users each connection has acted as, followed: when the rules of one of them change, or it is deleted, disabled
 * or moved to another namespace, the connection's {@link Listener} hears it on the connection's event loop.
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

    /** What a connection does when one of its users changes; called on the connection's event loop. */
    public interface Listener {
        /**
         * @param revoked true when {@code principal} may no longer act at all; false when only its rules changed
         */
        void changed(Channel channel, Principal principal, boolean revoked);
    }

    private final AccessControl access;
    private final Listener listener;

    public ConnectionUsers(final AccessControl access, final Listener listener) {
        this.access = access;
        this.listener = listener;
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
        final Map<String, PolicyWatch> watched = watches;
        // Called on the administrator's thread: handed to the connection's event loop.
        watched.put(principal.name(), access.watch(principal, new PolicyWatcher() {
            @Override
            public void rulesChanged() {
                channel.eventLoop().execute(() -> listener.changed(channel, principal, false));
            }

            @Override
            public void revoked() {
                channel.eventLoop().execute(() -> {
                    watched.remove(principal.name()); // a user made again under this name is followed afresh
                    listener.changed(channel, principal, true);
                });
            }
        }));
    }
}

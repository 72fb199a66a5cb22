package io.junction.grpc;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Messaging} with topics, groups, a send that records messages and a recorded changeInvisibleTime; everything
 * else is unsupported.
 */
final class FakeMessaging {
    final Map<String, TopicConfig> topics = new HashMap<>();
    final Map<String, GroupConfig> groups = new HashMap<>();
    final List<Message> sent = new ArrayList<>();
    /** changeInvisibleTime calls as "handle@millis"; each answers the handle with a '+' appended. */
    final List<String> invisibilityChanges = new java.util.concurrent.CopyOnWriteArrayList<>();

    Messaging messaging() {
        final Messaging.GroupAdmin groupAdmin = (Messaging.GroupAdmin) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Messaging.GroupAdmin.class}, (p, m, args) -> {
                    switch (m.getName()) {
                        case "get":
                            return Optional.ofNullable(groups.get((String) args[0]));
                        case "createOrUpdate":
                            final GroupConfig g = (GroupConfig) args[0];
                            groups.put(g.name(), g);
                            return CompletableFuture.completedFuture(g);
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
        return (Messaging) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Messaging.class},
                (p, m, args) -> {
                    switch (m.getName()) {
                        case "route":
                            return Optional.ofNullable(topics.get((String) args[0]));
                        case "groups":
                            return groupAdmin;
                        case "send":
                            final Message msg = (Message) args[0];
                            sent.add(msg);
                            return CompletableFuture.completedFuture(new SendResult(msg.uniqueId(), msg.topic(), 0,
                                    sent.size() - 1L, 0L, new java.net.InetSocketAddress("127.0.0.1", 1)));
                        case "changeInvisibleTime":
                            invisibilityChanges.add(args[1] + "@" + args[2]);
                            return CompletableFuture.completedFuture(args[1] + "+");
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }
}

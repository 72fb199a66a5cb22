package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * A store's contract with one of its parts answered by a test (a topic admin whose writes wait, key-value configs
 * whose compare-and-set always loses), everything else going to the store: races forced in a set order instead of
 * hoped for.
 */
final class InterceptedMessaging {
    private InterceptedMessaging() {
    }

    /** {@code target} with {@code topics} as its topic admin. */
    static Messaging withTopics(final Messaging target, final Messaging.TopicAdmin topics) {
        return intercepted(target, "topics", topics);
    }

    /** {@code target} with {@code kv} as its key-value configs. */
    static Messaging withKvConfigs(final Messaging target, final Messaging.KvConfigs kv) {
        return intercepted(target, "kvConfigs", kv);
    }

    private static Messaging intercepted(final Messaging target, final String part, final Object answer) {
        return (Messaging) Proxy.newProxyInstance(Messaging.class.getClassLoader(), new Class<?>[] {Messaging.class},
                (proxy, method, args) -> {
                    if (method.getName().equals(part) && method.getParameterCount() == 0) {
                        return answer;
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}

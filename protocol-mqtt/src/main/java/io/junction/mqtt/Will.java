package io.junction.mqtt;

import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.netty.handler.codec.mqtt.MqttProperties;
import java.util.concurrent.TimeUnit;

/**
 * A will message (3.1.2.5), kept by its connection until the connection ends; published when it ends without a
 * normal DISCONNECT.
 */
record Will(String topic, byte[] payload, int qos, boolean retain, MqttProperties properties, long delaySeconds) {

    /**
     * The connection of session {@code s} ended abnormally: publishes the will now, or after its delay interval
     * (capped by the session's expiry) unless the session resumed first (3.1.3-9). Runs on the session's executor.
     */
    void connectionLost(final MqttBroker broker, final Principal principal, final Session s) {
        final long delay = Math.min(delaySeconds, s.persistent() ? s.sessionExpirySeconds() : 0);
        if (delay <= 0) {
            publish(broker, principal, s);
        } else {
            s.executor().schedule(() -> {
                if (!s.online() || s.closed()) {
                    publish(broker, principal, s); // 3.1.3-9: unless the session resumed first
                }
            }, delay, TimeUnit.SECONDS);
        }
    }

    /** Publishes the will, if its user may publish to its topic under the rules in force now (not at CONNECT). */
    private void publish(final MqttBroker broker, final Principal principal, final Session s) {
        if (broker.accessControl().allows(principal, ResourceKind.TOPIC,
                s.namespace.core(CoreTopics.coreTopicOf(topic)), Action.PUB)) {
            broker.publishWill(s, this);
        }
    }
}

package io.junction.mqtt;

import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttProperties;
import java.util.UUID;

/**
 * What an authenticated CONNECT asks for, checked: the client id (assigned when empty), the will, the session's
 * lifetime, the client's limits (Receive Maximum, Maximum Packet Size, Topic Alias Maximum, Request Problem
 * Information) and the keep-alive to enforce; or the CONNACK code and reason that refuse it.
 *
 * @param expiryToKeep      seconds the session outlives the connection (3.1.1: forever when persistent)
 * @param receiveMaximum    QoS 1/2 deliveries the client accepts in flight
 * @param maxPacketSize     the largest packet the client accepts ({@link Long#MAX_VALUE}: no limit)
 * @param keepAlive         seconds without a packet after which 1.5 × closes the connection (0: none)
 * @param serverKeepAlive   whether the broker's keep-alive replaces the client's (told in the CONNACK)
 */
record ConnectRequest(int version, String clientId, boolean assigned, boolean cleanStart,
                      Will will, boolean persistent, long expiryToKeep, int receiveMaximum,
                      long maxPacketSize, int topicAliasMaximum, boolean problemInformation, int keepAlive,
                      boolean serverKeepAlive) {

    /** A request, or the refusal ({@code refusal} and {@code why}) of the CONNECT. */
    record Outcome(ConnectRequest request, MqttConnectReturnCode refusal, String why) {
        static Outcome refused(final MqttConnectReturnCode code, final String why) {
            return new Outcome(null, code, why);
        }
    }

    /** Checks a CONNECT; {@code securityEnabled} refuses client ids that could spell another namespace's sessions. */
    static Outcome parse(final MqttConnectMessage m, final MqttSettings settings, final boolean securityEnabled) {
        final int version = m.variableHeader().version();
        final boolean v5 = version == 5;
        final MqttProperties props = m.variableHeader().properties();
        if (v5 && props.getProperty(MqttProperties.AUTHENTICATION_METHOD) != null) {
            return Outcome.refused(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                    "enhanced authentication is not supported");
        }
        final boolean cleanStart = m.variableHeader().isCleanSession();
        String clientId = m.payload().clientIdentifier();
        boolean assigned = false;
        if (clientId == null || clientId.isEmpty()) {
            if (!v5 && !cleanStart) {
                return Outcome.refused(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                        "an empty client identifier needs a clean session"); // 3.1.3-8
            }
            clientId = "junction-" + UUID.randomUUID();
            assigned = true;
        } else if (securityEnabled && clientId.indexOf('%') >= 0) {
            // '%' separates a session's namespace from its client id (MqttNamespace): refused so no client id can
            // spell another tenant's session key.
            return Outcome.refused(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                    : MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    "a client identifier may not contain '%'");
        }
        Will will = null;
        if (m.variableHeader().isWillFlag()) {
            final String topic = m.payload().willTopic();
            if (!TopicFilter.isValidTopicName(topic)) {
                return Outcome.refused(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID
                        : MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, "will topic invalid");
            }
            final MqttProperties wp = m.payload().willProperties();
            final Integer delay = wp == null ? null : MqttMessageMapping.intProperty(wp,
                    MqttProperties.WILL_DELAY_INTERVAL);
            will = new Will(topic, m.payload().willMessageInBytes(), m.variableHeader().willQos(),
                    m.variableHeader().isWillRetain(), wp == null ? MqttProperties.NO_PROPERTIES : wp,
                    delay == null ? 0 : delay & 0xFFFFFFFFL);
        }
        final Integer expiry = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.SESSION_EXPIRY_INTERVAL)
                : null;
        final long expirySeconds = expiry == null ? 0 : expiry & 0xFFFFFFFFL;
        final boolean persistent = v5 ? expirySeconds > 0 : !cleanStart;
        final Integer rm = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.RECEIVE_MAXIMUM) : null;
        final Integer mps = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.MAXIMUM_PACKET_SIZE) : null;
        final Integer tam = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.TOPIC_ALIAS_MAXIMUM) : null;
        final Integer rpi = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.REQUEST_PROBLEM_INFORMATION)
                : null;
        final boolean serverKeepAlive = v5 && settings.serverKeepAlive() > 0;
        final int keepAlive = serverKeepAlive ? settings.serverKeepAlive() : m.variableHeader().keepAliveTimeSeconds();
        return new Outcome(new ConnectRequest(version, clientId, assigned, cleanStart, will, persistent,
                v5 ? expirySeconds : persistent ? 0xFFFFFFFFL : 0, rm == null || rm <= 0 ? 65535 : rm,
                mps == null || mps <= 0 ? Long.MAX_VALUE : mps & 0xFFFFFFFFL,
                tam == null ? 0 : Math.max(0, Math.min(tam, 1024)), rpi == null || rpi != 0, keepAlive,
                serverKeepAlive), null, null);
    }

    /** The CONNACK's properties (MQTT 5): an assigned client id, the broker's limits, its keep-alive if it sets one. */
    MqttProperties connAckProperties(final MqttSettings settings) {
        final MqttProperties ackProps = new MqttProperties();
        if (version == 5) {
            if (assigned) {
                ackProps.add(new MqttProperties.StringProperty(MqttProperties.ASSIGNED_CLIENT_IDENTIFIER, clientId));
            }
            ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM,
                    settings.receiveMaximum()));
            ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE,
                    settings.maxPacketSize()));
            ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS_MAXIMUM,
                    settings.topicAliasMaximum()));
            if (serverKeepAlive) {
                ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.SERVER_KEEP_ALIVE, keepAlive));
            }
        }
        return ackProps;
    }
}

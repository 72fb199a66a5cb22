package io.junction.mqtt;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.ResourceKind;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubAckPayload;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import java.util.List;

/**
 * The SUBSCRIBEs and UNSUBSCRIBEs of one connection's client: each filter checked (syntax, shared-subscription rules,
 * the broker's deny list, SUB on its core topic and share group), applied to the session, answered with one SUBACK /
 * UNSUBACK whose reason string names every refused filter with its problem, then retained messages sent as each
 * subscription's Retain Handling asks. Runs on the session's executor, as the connection does.
 */
final class SubscribeRequests {
    private final MqttConnection connection;
    private final MqttBroker broker;
    private final MqttSettings settings;

    SubscribeRequests(final MqttConnection connection, final MqttBroker broker) {
        this.connection = connection;
        this.broker = broker;
        this.settings = broker.settings();
    }

    void onSubscribe(final MqttSubscribeMessage m) {
        final int packetId = m.idAndPropertiesVariableHeader().messageId();
        final MqttProperties props = m.idAndPropertiesVariableHeader().properties();
        final Integer subId = MqttMessageMapping.intProperty(props, MqttProperties.SUBSCRIPTION_IDENTIFIER);
        final List<MqttTopicSubscription> subs = m.payload().topicSubscriptions();
        final int[] codes = new int[subs.size()];
        final Subscription[] added = new Subscription[subs.size()];
        final boolean[] existed = new boolean[subs.size()];
        final TopicFilter[] filters = new TopicFilter[subs.size()];
        for (int i = 0; i < subs.size(); i++) {
            filters[i] = TopicFilter.parse(subs.get(i).topicFilter());
            if (connection.version() == 5 && filters[i] != null && filters[i].shared()
                    && subs.get(i).option().isNoLocal()) {
                // 3.8.3-4: a protocol error, nothing applied
                connection.disconnect(0x82, "no local on a shared subscription");
                return;
            }
        }
        final StringBuilder refused = new StringBuilder();
        for (int i = 0; i < subs.size(); i++) {
            final MqttTopicSubscription s = subs.get(i);
            final TopicFilter f = filters[i];
            final String problem;
            final int failure;
            if (f == null) {
                failure = 0x8F;
                problem = "topic filter invalid";
            } else if (f.shared() && f.coreTopic() == null) {
                failure = 0x9E;
                problem = "a shared subscription needs a first topic level without wildcards";
            } else if (settings.denied().refuses(f)) {
                failure = 0x87;
                problem = "subscriptions to this filter are not allowed on this broker";
            } else if (!mayRead(f)) {
                failure = 0x87;
                problem = "not authorized";
            } else {
                final int qos = Math.min(2, s.option().qos().value());
                final Subscription sub = new Subscription(f, qos, connection.version() == 5 && s.option().isNoLocal(),
                        connection.version() == 5 && s.option().isRetainAsPublished(),
                        connection.version() == 5 ? s.option().retainHandling().value() : 0, subId == null ? 0 : subId);
                existed[i] = connection.session().subscribe(sub);
                added[i] = sub;
                codes[i] = qos;
                continue;
            }
            codes[i] = connection.version() == 5 ? failure : 0x80;
            refused.append(refused.isEmpty() ? "" : "; ").append(s.topicFilter()).append(": ").append(problem);
        }
        broker.sessionChanged(connection.session());
        final MqttProperties ackProps = refused.isEmpty() ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (!refused.isEmpty()) {
            connection.addReasonString(ackProps, refused.toString());
        }
        connection.writeAndFlush(new MqttSubAckMessage(new MqttFixedHeader(MqttMessageType.SUBACK, false,
                MqttQoS.AT_MOST_ONCE, false, 0), new MqttMessageIdAndPropertiesVariableHeader(packetId, ackProps),
                new MqttSubAckPayload(codes)));
        for (int i = 0; i < added.length; i++) {
            final Subscription sub = added[i];
            if (sub != null && (sub.retainHandling() == 0 || sub.retainHandling() == 1 && !existed[i])) {
                connection.session().sendRetained(sub);
            }
        }
    }

    /** SUB on the filter's core topic (every topic for a root wildcard), and on the share group if shared. */
    private boolean mayRead(final TopicFilter f) {
        final AccessControl acl = broker.accessControl();
        final MqttNamespace ns = connection.session().namespace;
        final String topic = ns.core(f.coreTopic() == null ? "*" : f.coreTopic());
        return acl.allows(connection.principal(), ResourceKind.TOPIC, topic, Action.SUB)
                && (!f.shared() || acl.allows(connection.principal(), ResourceKind.GROUP, ns.core("mqtt-share-"
                        + CoreTopics.escape(f.shareGroup())), Action.SUB));
    }

    void onUnsubscribe(final MqttUnsubscribeMessage m) {
        final int packetId = m.idAndPropertiesVariableHeader().messageId();
        final List<String> topics = m.payload().topics();
        final short[] codes = new short[topics.size()];
        final StringBuilder problems = new StringBuilder();
        for (int i = 0; i < topics.size(); i++) {
            final String filter = topics.get(i);
            final String problem;
            if (TopicFilter.parse(filter) == null) {
                codes[i] = 0x8F;
                problem = "topic filter invalid";
            } else if (connection.session().unsubscribe(filter)) {
                continue; // 0x00
            } else {
                codes[i] = 0x11;
                problem = "no subscription existed";
            }
            problems.append(problems.isEmpty() ? "" : "; ").append(filter).append(": ").append(problem);
        }
        broker.sessionChanged(connection.session());
        final MqttProperties props = problems.isEmpty() ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (!problems.isEmpty()) {
            connection.addReasonString(props, problems.toString());
        }
        connection.writeAndFlush(new MqttUnsubAckMessage(new MqttFixedHeader(MqttMessageType.UNSUBACK, false,
                MqttQoS.AT_MOST_ONCE, false, 0), new MqttMessageIdAndPropertiesVariableHeader(packetId, props),
                new MqttUnsubAckPayload(codes)));
    }
}

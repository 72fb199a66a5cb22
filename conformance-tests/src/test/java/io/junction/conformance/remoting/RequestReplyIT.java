package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Request-reply with the real clients: RocketMQ's {@code DefaultMQProducer.request} answered through
 * {@code MessageUtil.createReplyMessage}, MQTT 5 response topic and correlation data (HiveMQ), JMS reply-to and
 * correlation id (Qpid JMS), in every pairing of requester and responder. Responders record what they did in their
 * callbacks; the test thread asserts.
 */
@WithBroker
class RequestReplyIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final long REQUEST_TIMEOUT_MILLIS = 20_000;
    private static RunningBroker broker;
    private static DefaultMQProducer requester;
    private static DefaultMQProducer responder;

    private final List<AutoCloseable> closeAfter = new CopyOnWriteArrayList<>();
    private final List<Throwable> responderFailures = new CopyOnWriteArrayList<>();
    /** Replies RocketMQ responders sent and the broker accepted. */
    private final List<String> repliesSent = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        requester = Clients.producer(broker);
        responder = Clients.producer(broker);
    }

    @AfterAll
    static void stop() {
        if (requester != null) {
            requester.shutdown();
        }
        if (responder != null) {
            responder.shutdown();
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
        assertThat(responderFailures).as("failures inside responder callbacks").isEmpty();
    }

    private static String text(final byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final ByteBuffer buffer) {
        return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
    }

    /** A RocketMQ consumer of {@code topic} that answers every request with "pong:" and its body. */
    private void rocketMqResponder(final String topic) throws Exception {
        // The topic exists before the consumer looks it up, so its first rebalance already reads it.
        responder.createTopic("TBW102", topic, 1, java.util.Map.of());
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(Names.unique("responders"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("rc"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                try {
                    final Message reply = MessageUtil.createReplyMessage(m, bytes("pong:" + text(m.getBody())));
                    final SendResult sent = responder.send(reply, REQUEST_TIMEOUT_MILLIS);
                    if (sent.getSendStatus() == SendStatus.SEND_OK) {
                        repliesSent.add(text(m.getBody()));
                    }
                } catch (Exception e) {
                    responderFailures.add(e);
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        closeAfter.add(consumer::shutdown);
    }

    /**
     * {@code producer.request(msg, callback, timeout)}, its reply as a future. Since 4.9.4 the client calls
     * {@code onSuccess(null)} once the request is sent and {@code onSuccess(reply)} when the reply comes, so only a
     * message completes the future. (The synchronous {@code request(msg, timeout)} of rocketmq-client 5.3.1 to 5.3.3
     * gives up as soon as the request is sent, whatever the broker: those releases count its wait down when the send
     * succeeds, RocketMQ #9608. The 4.9.x client's synchronous request is tested in {@code RemotingClient4IT}.)
     */
    private static CompletableFuture<Message> request(final DefaultMQProducer producer, final Message msg)
            throws Exception {
        final CompletableFuture<Message> answered = new CompletableFuture<>();
        producer.request(msg, new RequestCallback() {
            @Override
            public void onSuccess(final Message message) {
                if (message != null) {
                    answered.complete(message);
                }
            }

            @Override
            public void onException(final Throwable e) {
                answered.completeExceptionally(e);
            }
        }, REQUEST_TIMEOUT_MILLIS);
        return answered;
    }

    private static Message answer(final CompletableFuture<Message> request) throws Exception {
        return request.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    private Mqtt5BlockingClient mqtt(final String name) {
        final Mqtt5BlockingClient client = Mqtt5Client.builder().identifier(Names.unique(name))
                .serverHost("127.0.0.1").serverPort(broker.mqttPort())
                .buildBlocking();
        client.connect();
        closeAfter.add(client::disconnect);
        return client;
    }

    private Connection jms() throws Exception {
        final Connection c = new JmsConnectionFactory(broker.amqpUri())
                .createConnection();
        c.start();
        closeAfter.add(c);
        return c;
    }

    @Test
    void shouldPushARocketMqRespondersReplyToTheRequester() throws Exception {
        final String topic = Names.unique("rpc");
        rocketMqResponder(topic);

        final List<CompletableFuture<Message>> requests = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            requests.add(request(requester, new Message(topic, bytes("ping" + i))));
        }
        for (int i = 0; i < 5; i++) {
            final Message reply = answer(requests.get(i));
            assertThat(text(reply.getBody())).isEqualTo("pong:ping" + i);
            assertThat(reply.getProperty("MSG_TYPE")).isEqualTo("reply");
            assertThat(reply.getProperty("PUSH_REPLY_TIME")).isNotBlank();
        }
        // the responder's sends succeed once the requester took the replies (their answers may trail the pushes)
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(repliesSent)
                .containsExactlyInAnyOrder("ping0", "ping1", "ping2", "ping3", "ping4"));
    }

    @Test
    void shouldFailTheReplyClearlyWhenTheRequesterIsGone() throws Exception {
        final String topic = Names.unique("gone");
        final DefaultMQProducer leaving = Clients.producer(broker);
        try {
            final CompletableFuture<Message> neverAnswered = request(leaving, new Message(topic, bytes("anyone?")));
            // the request is stored before its requester leaves
            final List<MessageExt> requests = Clients.drain(broker, topic, 1, DEADLINE);
            assertThat(requests).hasSize(1);
            final MessageExt request = requests.get(0);
            assertThat(request.getProperty("CLUSTER")).isEqualTo("JunctionCluster");
            assertThat(request.getProperty("REPLY_TO_CLIENT")).isEqualTo(leaving.buildMQClientId());

            leaving.shutdown();
            final Message reply = MessageUtil.createReplyMessage(request, bytes("too late"));
            // SYSTEM_ERROR, which the client retries before it gives up with the broker's answer as the cause
            assertThatThrownBy(() -> responder.send(reply, REQUEST_TIMEOUT_MILLIS))
                    .rootCause().isInstanceOfSatisfying(MQBrokerException.class, e -> {
                        assertThat(e.getResponseCode()).isEqualTo(1);
                        assertThat(e.getErrorMessage()).contains("not found").contains(leaving.buildMQClientId());
                    });
            assertThat(neverAnswered).isNotDone();
        } finally {
            leaving.shutdown();
        }
    }

    @Test
    void shouldAnswerAnMqttRequestFromARocketMqResponder() throws Exception {
        final String service = Names.unique("mqttsvc");
        rocketMqResponder(service);
        final Mqtt5BlockingClient client = mqtt("mqtt-requester");
        final String replies = "replies/" + Names.unique("m");
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = client.publishes(MqttGlobalPublishFilter.ALL)) {
            client.subscribeWith().topicFilter(replies).qos(MqttQos.AT_LEAST_ONCE).send();
            client.publishWith().topic(service + "/lights").qos(MqttQos.AT_LEAST_ONCE).responseTopic(replies)
                    .correlationData(bytes("corr-m1")).payload(bytes("on")).send();

            final Optional<Mqtt5Publish> reply = publishes.receive(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply).isPresent();
            assertThat(reply.get().getTopic().toString()).isEqualTo(replies);
            assertThat(reply.get().getCorrelationData().map(RequestReplyIT::text)).hasValue("corr-m1");
            assertThat(text(reply.get().getPayloadAsBytes())).isEqualTo("pong:on");
        }
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(repliesSent).containsExactly("on"));
    }

    @Test
    void shouldAnswerARocketMqRequestFromAnMqttResponder() throws Exception {
        final String service = Names.unique("mqttresp");
        final Mqtt5BlockingClient client = mqtt("mqtt-responder");
        client.toAsync().subscribeWith().topicFilter(service).qos(MqttQos.AT_LEAST_ONCE).callback(request -> {
            try {
                assertThat(request.getResponseTopic()).isPresent();
                client.toAsync().publishWith().topic(request.getResponseTopic().get())
                        .correlationData(request.getCorrelationData().orElseThrow()).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(bytes("pong:" + text(request.getPayloadAsBytes()))).send();
            } catch (Throwable e) {
                responderFailures.add(e);
            }
        }).send().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        final Message reply = answer(request(requester, new Message(service, bytes("ping"))));
        assertThat(text(reply.getBody())).isEqualTo("pong:ping");
    }

    @Test
    void shouldAnswerAJmsRequestFromARocketMqResponder() throws Exception {
        final String service = Names.unique("jmssvc");
        rocketMqResponder(service);
        final Session session = jms().createSession(false, Session.AUTO_ACKNOWLEDGE);
        final TemporaryQueue replies = session.createTemporaryQueue();
        final MessageConsumer replyConsumer = session.createConsumer(replies);
        final TextMessage request = session.createTextMessage("ping");
        request.setJMSReplyTo(replies);
        request.setJMSCorrelationID("corr-j1");
        session.createProducer(session.createQueue(service)).send(request);

        final jakarta.jms.Message reply = replyConsumer.receive(DEADLINE.toMillis());
        assertThat(reply).isInstanceOf(BytesMessage.class);
        assertThat(reply.getJMSCorrelationID()).isEqualTo("corr-j1");
        final byte[] body = new byte[(int) ((BytesMessage) reply).getBodyLength()];
        ((BytesMessage) reply).readBytes(body);
        assertThat(text(body)).isEqualTo("pong:ping");
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(repliesSent).containsExactly("ping"));
    }

    @Test
    void shouldAnswerARocketMqRequestFromAJmsResponder() throws Exception {
        final String service = Names.unique("jmsresp");
        final Session session = jms().createSession(false, Session.AUTO_ACKNOWLEDGE);
        final MessageConsumer requests = session.createConsumer(session.createQueue(service));
        requests.setMessageListener(request -> {
            try {
                final Destination replyTo = request.getJMSReplyTo();
                assertThat(replyTo).isNotNull();
                final byte[] body = new byte[(int) ((BytesMessage) request).getBodyLength()];
                ((BytesMessage) request).readBytes(body);
                final TextMessage reply = session.createTextMessage("pong:" + text(body));
                reply.setJMSCorrelationID(request.getJMSCorrelationID());
                session.createProducer(replyTo).send(reply);
            } catch (Throwable e) {
                responderFailures.add(e);
            }
        });

        final Message reply = answer(request(requester, new Message(service, bytes("ping"))));
        assertThat(text(reply.getBody())).isEqualTo("pong:ping");
    }

    @Test
    void shouldAnswerAnMqttRequestFromAJmsResponder() throws Exception {
        final String service = Names.unique("m2j");
        final Session session = jms().createSession(false, Session.AUTO_ACKNOWLEDGE);
        final MessageConsumer requests = session.createConsumer(session.createQueue(service));
        requests.setMessageListener(request -> {
            try {
                final TextMessage reply = session.createTextMessage("pong");
                reply.setJMSCorrelationID(request.getJMSCorrelationID());
                session.createProducer(request.getJMSReplyTo()).send(reply);
            } catch (Throwable e) {
                responderFailures.add(e);
            }
        });
        final Mqtt5BlockingClient client = mqtt("mqtt-requester");
        // JMS addresses have no levels: an MQTT requester answered over JMS uses a one-level response topic
        final String replies = Names.unique("mreplies");
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = client.publishes(MqttGlobalPublishFilter.ALL)) {
            client.subscribeWith().topicFilter(replies).qos(MqttQos.AT_LEAST_ONCE).send();
            client.publishWith().topic(service + "/job").qos(MqttQos.AT_LEAST_ONCE).responseTopic(replies)
                    .correlationData(bytes("corr-m2")).payload(bytes("ping")).send();

            final Optional<Mqtt5Publish> reply = publishes.receive(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply).isPresent();
            assertThat(reply.get().getTopic().toString()).isEqualTo(replies);
            assertThat(reply.get().getCorrelationData().map(RequestReplyIT::text)).hasValue("corr-m2");
            assertThat(text(reply.get().getPayloadAsBytes())).isEqualTo("pong");
        }
    }

    @Test
    void shouldAnswerAJmsRequestFromAnMqttResponder() throws Exception {
        final String service = Names.unique("j2m");
        final Mqtt5BlockingClient client = mqtt("mqtt-responder");
        client.toAsync().subscribeWith().topicFilter(service).qos(MqttQos.AT_LEAST_ONCE).callback(request -> {
            try {
                client.toAsync().publishWith().topic(request.getResponseTopic().orElseThrow())
                        .correlationData(request.getCorrelationData().orElseThrow()).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(bytes("pong:" + text(request.getPayloadAsBytes()))).send();
            } catch (Throwable e) {
                responderFailures.add(e);
            }
        }).send().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        final Session session = jms().createSession(false, Session.AUTO_ACKNOWLEDGE);
        final TemporaryQueue replies = session.createTemporaryQueue();
        final MessageConsumer replyConsumer = session.createConsumer(replies);
        final TextMessage request = session.createTextMessage("ping");
        request.setJMSReplyTo(replies);
        request.setJMSCorrelationID("corr-j2");
        session.createProducer(session.createTopic(service)).send(request);

        final jakarta.jms.Message reply = replyConsumer.receive(DEADLINE.toMillis());
        assertThat(reply).isNotNull();
        assertThat(reply.getJMSCorrelationID()).isEqualTo("corr-j2");
        final byte[] body = new byte[(int) ((BytesMessage) reply).getBodyLength()];
        ((BytesMessage) reply).readBytes(body);
        assertThat(text(body)).isEqualTo("pong:ping");
    }

    @Test
    void shouldCarryTheCanonicalReplyPairToEveryConsumer() throws Exception {
        final String topic = Names.unique("seen");
        final Mqtt5BlockingClient client = mqtt("mqtt-requester");
        client.publishWith().topic(topic + "/a").qos(MqttQos.AT_LEAST_ONCE).responseTopic("back/" + topic)
                .correlationData(new byte[] {(byte) 0xFF, 0, 1}).payload(bytes("x")).send();
        await().atMost(DEADLINE).untilAsserted(() -> {
            final List<MessageExt> seen = Clients.drain(broker, topic, 1, Duration.ofSeconds(5));
            assertThat(seen).hasSize(1);
            // a RocketMQ consumer sees what createReplyMessage needs, and the canonical pair
            assertThat(seen.get(0).getProperty("CLUSTER")).isEqualTo("JunctionCluster");
            assertThat(seen.get(0).getProperty("REPLY_TO_CLIENT")).isEqualTo("reply-to:back/" + topic);
            assertThat(seen.get(0).getProperty("REPLY_TO")).isEqualTo("back/" + topic);
            assertThat(seen.get(0).getProperty("CORRELATION_ID")).isEqualTo("base64:/wAB");
        });
    }
}

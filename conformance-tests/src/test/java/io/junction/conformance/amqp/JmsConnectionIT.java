package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Open;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Connection level with Qpid JMS: SASL PLAIN and ANONYMOUS, the open/begin/attach/detach/end/close lifecycle (the
 * broker's connection gauge returns to zero), idle-timeout heartbeats keeping a quiet connection open, and max frame
 * size and channel max negotiation (large messages in many frames; a session above channel-max is refused).
 */
@WithBroker(settings = {"amqp.channel-max=7", "amqp.max-frame-size=4k", "amqp.idle-timeout-ms=1500"})
class JmsConnectionIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static void roundTrip(final Connection c, final String queueName, final String text) throws Exception {
        final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        final Queue q = s.createQueue(queueName);
        s.createProducer(q).send(s.createTextMessage(text));
        final MessageConsumer consumer = s.createConsumer(q);
        assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo(text);
        consumer.close();
        s.close();
    }

    @Test
    void shouldAuthenticateWithPlainAndAnonymous() throws Exception {
        try (Connection plain = Jms.factory(broker, "amqp.saslMechanisms=PLAIN").createConnection("alice", "secret")) {
            plain.start();
            roundTrip(plain, "sasl-plain", "as alice");
        }
        try (Connection anonymous = Jms.factory(broker, "amqp.saslMechanisms=ANONYMOUS").createConnection()) {
            anonymous.start();
            roundTrip(anonymous, "sasl-anonymous", "as nobody");
        }
    }

    @Test
    void shouldRunTheWholeLifecycleAndReleaseTheConnection() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final List<Session> sessions = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createConsumer(s.createQueue("life-" + i)).close();
                s.createProducer(s.createTopic("life-" + i)).close();
                sessions.add(s);
            }
            for (Session s : sessions) {
                s.close();
            }
            roundTrip(c, "life-after", "still fine");
            assertThat(gauge()).isGreaterThanOrEqualTo(1);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge() == 0);
    }

    @Test
    void shouldKeepAQuietConnectionOpenWithHeartbeats() throws Exception {
        try (Connection c = Jms.factory(broker, "amqp.idleTimeout=1000").createConnection()) {
            c.start();
            final long until = System.currentTimeMillis() + 4_000;
            // Nothing is sent for several idle timeouts both ways; the connection must survive on empty frames.
            await().pollDelay(Duration.ofMillis(4_000)).atMost(Duration.ofSeconds(6))
                    .until(() -> System.currentTimeMillis() >= until);
            roundTrip(c, "quiet", "after a quiet spell");
        }
    }

    @Test
    void shouldSplitLargeMessagesIntoFramesOfTheNegotiatedSize() throws Exception {
        final byte[] big = new byte[200 * 1024];
        new Random(7).nextBytes(big);
        try (Connection c = Jms.factory(broker, "amqp.maxFrameSize=1024").createConnection()) {
            c.start();
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue q = s.createQueue("large");
            final BytesMessage m = s.createBytesMessage();
            m.writeBytes(big);
            s.createProducer(q).send(m);
            final BytesMessage back = (BytesMessage) s.createConsumer(q).receive(10_000);
            final byte[] read = new byte[(int) back.getBodyLength()];
            back.readBytes(read);
            assertThat(read).isEqualTo(big);
        }
    }

    @Test
    void shouldAdvertiseItsLimitsAndRefuseASessionAboveChannelMax() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final Open open = new Open();
            open.setContainerId("raw");
            final Begin begin = new Begin();
            begin.setNextOutgoingId(UnsignedInteger.ZERO);
            begin.setIncomingWindow(UnsignedInteger.valueOf(10));
            begin.setOutgoingWindow(UnsignedInteger.valueOf(10));
            raw.write(RawAmqp.AMQP_HEADER).write(raw.frame(0, open)).write(raw.frame(8, begin));
            final byte[] answer = raw.readUntilClosed();
            final Open theirs = (Open) raw.performatives(answer).stream().filter(p -> p instanceof Open).findFirst()
                    .orElseThrow();
            assertThat(theirs.getChannelMax().intValue()).isEqualTo(7);
            assertThat(theirs.getMaxFrameSize().intValue()).isEqualTo(4096);
            assertThat(theirs.getIdleTimeOut().intValue()).isEqualTo(750);
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:connection:framing-error");
        }
    }

    /** {@code junction_connections{protocol="amqp"}} from /metrics. */
    private static int gauge() {
        for (String line : broker.get("/metrics").body().split("\n")) {
            if (line.startsWith("junction_connections{") && line.contains("protocol=\"amqp\"")) {
                return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return -1;
    }
}

package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Open;
import org.apache.qpid.proton.amqp.transport.Role;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input over raw sockets: a wrong protocol header is answered with the broker's header and a close; after a
 * valid header, garbage, oversize frames, frames on channels never begun, malformed performatives and a too-small
 * max-frame-size close the connection with the matching AMQP error condition. A JMS client on another connection
 * keeps being served throughout.
 */
@WithBroker(settings = "amqp.max-frame-size=64k")
class AmqpBadInputIT {
    private static RunningBroker broker;
    private static Connection jms;
    private static Session session;
    private static MessageConsumer consumer;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        jms = Jms.connect(broker);
        session = jms.createSession(false, Session.AUTO_ACKNOWLEDGE);
        consumer = session.createConsumer(session.createQueue("still-served"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (jms != null) {
            jms.close();
        }
    }

    /** After each bad connection, the healthy client still sends and receives. */
    private static void assertOthersServed(final String text) throws Exception {
        final Queue queue = session.createQueue("still-served");
        session.createProducer(queue).send(session.createTextMessage(text));
        assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo(text);
    }

    private static Open open() {
        final Open open = new Open();
        open.setContainerId("raw");
        return open;
    }

    @Test
    void shouldAnswerAWrongProtocolHeaderWithItsOwnAndClose() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final byte[] answer = raw.write("GET / HTTP/1.1\r\n\r\n".getBytes()).readUntilClosed();
            assertThat(answer).containsExactly(RawAmqp.SASL_HEADER);
        }
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final byte[] answer = raw.write(new byte[] {'A', 'M', 'Q', 'P', 1, 1, 0, 10}).readUntilClosed();
            assertThat(answer).containsExactly(RawAmqp.SASL_HEADER);
        }
        assertOthersServed("after wrong headers");
    }

    @Test
    void shouldCloseWithAFramingErrorOnGarbageAfterTheHeader() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final byte[] garbage = new byte[64];
            Arrays.fill(garbage, (byte) 0x7F);
            raw.write(RawAmqp.AMQP_HEADER).write(garbage);
            final byte[] answer = raw.readUntilClosed();
            assertThat(Arrays.copyOf(answer, 8)).containsExactly(RawAmqp.AMQP_HEADER);
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:connection:framing-error");
        }
        assertOthersServed("after garbage");
    }

    @Test
    void shouldCloseWithAFramingErrorOnAnOversizeFrame() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            raw.write(RawAmqp.AMQP_HEADER).write(raw.frame(0, open()));
            final byte[] huge = ByteBuffer.allocate(16).putInt(1 << 20).put((byte) 2).put((byte) 0).putShort((short) 0)
                    .array();
            raw.write(huge);
            final byte[] answer = raw.readUntilClosed();
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:connection:framing-error");
        }
        assertOthersServed("after an oversize frame");
    }

    @Test
    void shouldCloseWhenAFrameArrivesOnAChannelNeverBegun() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final Attach attach = new Attach();
            attach.setName("orphan");
            attach.setHandle(UnsignedInteger.ZERO);
            attach.setRole(Role.SENDER);
            raw.write(RawAmqp.AMQP_HEADER).write(raw.frame(0, open())).write(raw.frame(5, attach));
            final byte[] answer = raw.readUntilClosed();
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:connection:framing-error");
        }
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final Begin begin = new Begin();
            begin.setNextOutgoingId(UnsignedInteger.ZERO);
            begin.setIncomingWindow(UnsignedInteger.valueOf(100));
            begin.setOutgoingWindow(UnsignedInteger.valueOf(100));
            raw.write(RawAmqp.AMQP_HEADER).write(raw.frame(0, begin));
            final byte[] answer = raw.readUntilClosed();
            assertThat(raw.closeCondition(answer)).as("BEGIN before OPEN").isEqualTo("amqp:connection:framing-error");
        }
        assertOthersServed("after frames on unopened channels");
    }

    @Test
    void shouldCloseWithADecodeErrorOnAMalformedPerformative() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            // described type 0x10 (open) over a list whose container-id is a ubyte instead of a string
            final byte[] body = {0x00, 0x53, 0x10, (byte) 0xC0, 0x03, 0x01, 0x50, 0x01};
            raw.write(RawAmqp.AMQP_HEADER).write(RawAmqp.rawFrame(0, body));
            final byte[] answer = raw.readUntilClosed();
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:decode-error");
        }
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            // a list that claims more bytes than the frame holds
            final byte[] body = {0x00, 0x53, 0x10, (byte) 0xD0, 0x00, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x05};
            raw.write(RawAmqp.AMQP_HEADER).write(RawAmqp.rawFrame(0, body));
            final byte[] answer = raw.readUntilClosed();
            assertThat(raw.closeCondition(answer)).isIn("amqp:decode-error", "amqp:connection:framing-error");
        }
        assertOthersServed("after malformed performatives");
    }

    @Test
    void shouldRefuseAMaxFrameSizeBelowTheMinimum() throws Exception {
        try (RawAmqp raw = new RawAmqp(broker.amqpPort())) {
            final Open open = open();
            open.setMaxFrameSize(UnsignedInteger.valueOf(100));
            raw.write(RawAmqp.AMQP_HEADER).write(raw.frame(0, open));
            final byte[] answer = raw.readUntilClosed();
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:frame-size-too-small");
        }
        assertOthersServed("after a small max-frame-size");
    }

    @Test
    void shouldCloseAConnectionThatGoesSilentAfterOpening() throws Exception {
        try (RunningBroker quick = RunningBroker.start(Map.of("amqp.idle-timeout-ms", "1000"));
             RawAmqp raw = new RawAmqp(quick.amqpPort())) {
            final long start = System.nanoTime();
            raw.write(RawAmqp.AMQP_HEADER).write(raw.frame(0, open()));
            final byte[] answer = raw.readUntilClosed();
            final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(raw.closeCondition(answer)).isEqualTo("amqp:resource-limit-exceeded");
            assertThat(elapsedMs).isBetween(900L, 10_000L);
        }
    }
}

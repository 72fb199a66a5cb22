package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JMS message selectors as Qpid JMS users rely on them, table-driven: each selector subscribes to one topic before a
 * fixed set of messages is published, and must get exactly the messages it selects, in order. Properties keep the
 * types they were sent with: a string "2" is not greater than 1 while an int 2 is; numbers of every width compare by
 * value; LIKE, IN and string equality apply to strings; booleans are booleans; header fields (JMSPriority, JMSType,
 * JMSCorrelationID, JMSMessageID, JMSTimestamp, JMSDeliveryMode) are selectable; a missing property makes a
 * comparison unknown, and NOT of unknown is still unknown. The properties come back with their types
 * ({@code getObjectProperty}).
 */
@WithBroker
class JmsSelectorIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    /** Selector → the ids it selects, in the order they are published. */
    private static final Map<String, List<String>> TABLE = new LinkedHashMap<>();

    static {
        row("NumberOfOrders > 1", "int-two");
        row("NumberOfOrders = 2", "int-two");
        row("NumberOfOrders = '2'", "string-two");
        row("NOT (NumberOfOrders > 1)", "string-two"); // a string compared with a number is false, so NOT is true
        row("NumberOfOrders IN ('2')", "string-two");
        row("NumberOfOrders LIKE '2'", "string-two");
        row("pi = 3.14159", "pi");
        row("pi > 3.14 AND pi < 3.15", "pi");
        row("b = 1", "numbers");
        row("b + sh + i + l = 10", "numbers");
        row("l = 4.0", "numbers");
        row("i * 2 = l + 2", "numbers");
        row("f = 1.5", "numbers");
        row("d BETWEEN 2 AND 3", "numbers");
        row("d NOT BETWEEN 2 AND 3", "pi");
        row("i > 2.5", "numbers");
        row("flag", "numbers");
        row("flag = TRUE", "numbers");
        row("flag = FALSE", "headers");
        row("NOT flag", "headers");
        row("flagText = 'true'", "strings");
        row("flagText = TRUE"); // a string is not a boolean
        row("color = 'red'", "numbers");
        row("color <> 'red'", "headers", "strings"); // unknown for messages without color
        row("NOT (color = 'red')", "headers", "strings");
        row("color IN ('red', 'green')", "numbers", "strings");
        row("color NOT IN ('red', 'green')", "headers");
        row("color LIKE 'bl%'", "headers");
        row("color LIKE 'gr_en'", "strings");
        row("color NOT LIKE '%e%'");
        row("path LIKE 'a\\_%' ESCAPE '\\'", "strings");
        row("color IS NULL", "string-two", "int-two", "pi", "persistent-off");
        row("color IS NOT NULL AND flag IS NULL", "strings");
        row("missing > 1");
        row("NOT (missing > 1)");
        row("missing = 'x' OR color = 'green'", "strings");
        row("missing = 'x' AND color = 'green'");
        row("JMSType = 'gold'", "headers");
        row("JMSType LIKE 'go%' OR JMSType = 'silver'", "headers", "strings");
        row("JMSCorrelationID = 'corr-1'", "headers");
        row("JMSPriority > 6", "headers");
        row("JMSPriority = 4", "string-two", "int-two", "pi", "numbers", "strings", "persistent-off");
        row("JMSDeliveryMode = 'NON_PERSISTENT'", "persistent-off");
        row("JMSDeliveryMode = 'PERSISTENT' AND JMSPriority = 9", "headers");
    }

    private static void row(final String selector, final String... ids) {
        TABLE.put(selector, Arrays.asList(ids));
    }

    /** Publishes the fixed set of messages, then the end markers ({@code end} unless told otherwise). */
    private static void publish(final Session session, final MessageProducer producer, final String... ends)
            throws JMSException {
        final TextMessage stringTwo = session.createTextMessage("string-two");
        stringTwo.setStringProperty("NumberOfOrders", "2");
        send(producer, stringTwo, "string-two");

        final TextMessage intTwo = session.createTextMessage("int-two");
        intTwo.setIntProperty("NumberOfOrders", 2);
        send(producer, intTwo, "int-two");

        final TextMessage pi = session.createTextMessage("pi");
        pi.setDoubleProperty("pi", 3.14159);
        pi.setDoubleProperty("d", 9.5);
        send(producer, pi, "pi");

        final TextMessage numbers = session.createTextMessage("numbers");
        numbers.setByteProperty("b", (byte) 1);
        numbers.setShortProperty("sh", (short) 2);
        numbers.setIntProperty("i", 3);
        numbers.setLongProperty("l", 4L);
        numbers.setFloatProperty("f", 1.5f);
        numbers.setDoubleProperty("d", 2.5);
        numbers.setBooleanProperty("flag", true);
        numbers.setStringProperty("color", "red");
        send(producer, numbers, "numbers");

        final TextMessage headers = session.createTextMessage("headers");
        headers.setBooleanProperty("flag", false);
        headers.setStringProperty("color", "blue");
        headers.setJMSType("gold");
        headers.setJMSCorrelationID("corr-1");
        producer.setPriority(9);
        send(producer, headers, "headers");
        producer.setPriority(4);

        final TextMessage strings = session.createTextMessage("strings");
        strings.setStringProperty("color", "green");
        strings.setStringProperty("flagText", "true");
        strings.setStringProperty("path", "a_b");
        strings.setJMSType("silver");
        send(producer, strings, "strings");

        final TextMessage nonPersistent = session.createTextMessage("persistent-off");
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        send(producer, nonPersistent, "persistent-off");
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);

        for (String end : ends.length == 0 ? new String[] {"end"} : ends) {
            send(producer, session.createTextMessage(end), end);
        }
    }

    private static void send(final MessageProducer producer, final TextMessage m, final String id)
            throws JMSException {
        m.setStringProperty("id", id);
        producer.send(m);
    }

    @Test
    void shouldSelectByJmsSemantics() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("selected-table");
            final Map<String, MessageConsumer> subscribers = new LinkedHashMap<>();
            for (String selector : TABLE.keySet()) {
                subscribers.put(selector, session.createConsumer(topic, "(" + selector + ") OR id = 'end'"));
            }
            publish(session, session.createProducer(topic));
            final Map<String, List<String>> got = new LinkedHashMap<>();
            for (Map.Entry<String, MessageConsumer> e : subscribers.entrySet()) {
                got.put(e.getKey(), untilEnd(e.getValue()));
            }
            assertThat(got).isEqualTo(TABLE);
        }
    }

    @Test
    void shouldSelectOnAQueueTheSameWay() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("selected-queue");
            publish(session, session.createProducer(queue), "end-numbers", "end-strings");
            // two selectors taking disjoint parts of the queue (each up to its own end marker), then everything else
            final List<String> numbers = untilEnd(session.createConsumer(queue,
                    "NumberOfOrders > 1 OR id = 'end-numbers'"));
            final List<String> strings = untilEnd(session.createConsumer(queue,
                    "NumberOfOrders = '2' OR color LIKE 'gr%' OR id = 'end-strings'"));
            assertThat(numbers).containsExactly("int-two");
            assertThat(strings).containsExactly("string-two", "strings");
            final MessageConsumer rest = session.createConsumer(queue);
            final List<String> others = new ArrayList<>();
            Message m;
            while ((m = rest.receive(1000)) != null) {
                others.add(m.getStringProperty("id"));
            }
            assertThat(others).containsExactly("pi", "numbers", "headers", "persistent-off");
        }
    }

    @Test
    void shouldSelectOnMessageIdAndTimestamp() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("selected-ids");
            final MessageProducer producer = session.createProducer(queue);
            final long before = System.currentTimeMillis();
            final TextMessage first = session.createTextMessage("first");
            producer.send(first);
            producer.send(session.createTextMessage("second"));
            final long after = System.currentTimeMillis();
            assertThat(texts(session.createConsumer(queue, "JMSMessageID = '" + first.getJMSMessageID() + "'")))
                    .containsExactly("first");
            assertThat(texts(session.createConsumer(queue, "JMSTimestamp < " + before))).isEmpty();
            assertThat(texts(session.createConsumer(queue,
                    "JMSTimestamp BETWEEN " + before + " AND " + after))).containsExactly("second");
        }
    }

    @Test
    void shouldKeepPropertyTypes() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("typed-properties");
            publish(session, session.createProducer(queue));
            final MessageConsumer consumer = session.createConsumer(queue, "id = 'numbers' OR id = 'string-two'");
            final Message stringTwo = consumer.receive(RunningBroker.DEADLINE.toMillis());
            assertThat(stringTwo.getObjectProperty("NumberOfOrders")).isEqualTo("2");
            final Message numbers = consumer.receive(RunningBroker.DEADLINE.toMillis());
            assertThat(numbers.getObjectProperty("b")).isEqualTo((byte) 1);
            assertThat(numbers.getObjectProperty("sh")).isEqualTo((short) 2);
            assertThat(numbers.getObjectProperty("i")).isEqualTo(3);
            assertThat(numbers.getObjectProperty("l")).isEqualTo(4L);
            assertThat(numbers.getObjectProperty("f")).isEqualTo(1.5f);
            assertThat(numbers.getObjectProperty("d")).isEqualTo(2.5);
            assertThat(numbers.getObjectProperty("flag")).isEqualTo(true);
            assertThat(numbers.getObjectProperty("color")).isEqualTo("red");
        }
    }

    /** The ids a consumer gets up to an end marker (not included). */
    private static List<String> untilEnd(final MessageConsumer consumer) throws JMSException {
        final List<String> ids = new ArrayList<>();
        while (true) {
            final Message m = consumer.receive(RunningBroker.DEADLINE.toMillis());
            assertThat(m).as("the end marker after %s", ids).isNotNull();
            final String id = m.getStringProperty("id");
            if (id.startsWith("end")) {
                consumer.close();
                return ids;
            }
            ids.add(id);
        }
    }

    private static List<String> texts(final MessageConsumer consumer) throws JMSException {
        final List<String> out = new ArrayList<>();
        Message m;
        while ((m = consumer.receive(1000)) != null) {
            out.add(((TextMessage) m).getText());
        }
        consumer.close();
        return out;
    }
}

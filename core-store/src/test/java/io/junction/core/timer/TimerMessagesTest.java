package io.junction.core.timer;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TimerMessagesTest {

    private static Message.Builder message() {
        return Message.builder("orders").queueId(2).body("b".getBytes(StandardCharsets.UTF_8)).property("k", "v");
    }

    @Test
    void shouldParkWithTheRoutingAndTheDelayAsSent() {
        final Message parked = TimerMessages.park(message().property(MessageProperties.DELAY_SEC, "7").build(),
                "orders", 2, 1_000L);
        assertThat(parked.topic()).isEqualTo(TimerService.TOPIC);
        assertThat(parked.properties()).containsEntry(MessageProperties.REAL_TOPIC, "orders")
                .containsEntry(MessageProperties.REAL_QUEUE_ID, "2")
                .containsEntry(MessageProperties.DELIVER_AT, "1000")
                .containsEntry(MessageProperties.DELAY_SEC, "7")
                .containsEntry("k", "v");
    }

    @Test
    void shouldRecordALevelAbove18As18AsRocketMqDoes() {
        final Message parked = TimerMessages.park(message().property(MessageProperties.DELAY_LEVEL, "25")
                .property(MessageProperties.DELAY_MS, "5").build(), "orders", 2, 1_000L);
        assertThat(parked.property(MessageProperties.DELAY_LEVEL)).isEqualTo("18");
        assertThat(parked.properties()).doesNotContainKey(MessageProperties.DELAY_MS);
    }

    @Test
    void shouldKeepTheTimerPropertiesNextToALevelOfZero() {
        final Message parked = TimerMessages.park(message().property(MessageProperties.DELAY_LEVEL, "0")
                .property(MessageProperties.DELAY_MS, "5").build(), "orders", 2, 1_000L);
        assertThat(parked.properties()).containsEntry(MessageProperties.DELAY_LEVEL, "0")
                .containsEntry(MessageProperties.DELAY_MS, "5");
    }
}

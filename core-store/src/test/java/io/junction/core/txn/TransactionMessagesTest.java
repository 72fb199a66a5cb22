package io.junction.core.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransactionMessagesTest {
    @Test
    void shouldRecogniseHalfMessagesByPropertyOrSysFlag() {
        assertThat(TransactionMessages.isHalf(Message.builder("t").build())).isFalse();
        assertThat(TransactionMessages.isHalf(Message.builder("t")
                .property(MessageProperties.TRANSACTION_PREPARED, "true").build())).isTrue();
        assertThat(TransactionMessages.isHalf(Message.builder("t")
                .property(MessageProperties.TRANSACTION_PREPARED, "false").build())).isFalse();
        assertThat(TransactionMessages.isHalf(Message.builder("t").sysFlag(0x4 | 0x1).build())).isTrue();
        assertThat(TransactionMessages.isHalf(Message.builder("t").sysFlag(0x8).build())).isFalse();
        assertThat(TransactionMessages.isHalf(Message.builder("t").sysFlag(0xC).build())).isFalse();
    }

    @Test
    void shouldParkAHalfMessageWithItsRealTopicAndQueue() {
        final Message m = Message.builder("orders").uniqueId("U1").tag("a").property("k", "v").sysFlag(0x1)
                .property(MessageProperties.PRODUCER_GROUP, "pg").body(new byte[] {1, 2}).build();
        final Message half = TransactionMessages.half(m, "orders", 3);
        assertThat(half.topic()).isEqualTo(SystemNames.HALF_TOPIC);
        assertThat(half.queueId()).isZero();
        assertThat(half.sysFlag()).isEqualTo(0x1 | 0x4);
        assertThat(half.body()).containsExactly(1, 2);
        assertThat(half.properties()).containsAllEntriesOf(Map.of(MessageProperties.UNIQUE_ID, "U1",
                MessageProperties.TAGS, "a", "k", "v", MessageProperties.PRODUCER_GROUP, "pg",
                MessageProperties.REAL_TOPIC, "orders", MessageProperties.REAL_QUEUE_ID, "3",
                MessageProperties.TRANSACTION_PREPARED, "true"));
    }

    @Test
    void shouldTakeTheTransactionIdFromItsPropertyElseTheUniqueId() {
        assertThat(TransactionMessages.transactionId(Map.of(MessageProperties.UNIQUE_ID, "U"))).isEqualTo("U");
        assertThat(TransactionMessages.transactionId(Map.of(MessageProperties.UNIQUE_ID, "U",
                MessageProperties.TRANSACTION_ID, "T"))).isEqualTo("T");
    }

    @Test
    void shouldUseAValidImmunityTimeForTheFirstCheckOnly() {
        assertThat(TransactionMessages.firstCheckDelay(Map.of(), 60_000)).isEqualTo(60_000);
        assertThat(TransactionMessages.firstCheckDelay(Map.of(MessageProperties.CHECK_IMMUNITY_SECONDS, "5"),
                60_000)).isEqualTo(5_000);
        assertThat(TransactionMessages.firstCheckDelay(Map.of(MessageProperties.CHECK_IMMUNITY_SECONDS, "x"),
                60_000)).isEqualTo(60_000);
        assertThat(TransactionMessages.firstCheckDelay(Map.of(MessageProperties.CHECK_IMMUNITY_SECONDS, "-1"),
                60_000)).isEqualTo(60_000);
    }
}

package io.junction.remoting.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The words Remoting headers are made of (field names of the requests clients send most, and their commonest
 * values), each kept as one shared string: reading a header hands these out instead of allocating a string per key.
 * An open-addressing table over the bytes; anything not in it is made into a new string by the caller.
 */
final class HeaderWords {
    private static final String[] WORDS = {
        // header keys
        "code", "language", "version", "opaque", "flag", "remark", "extFields", "serializeTypeCurrentRPC",
        // SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "bname", "lo",
        // PULL_MESSAGE, offsets, heartbeats, transactions, send-back, POP
        "consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset",
        "suspendTimeoutMillis", "subscription", "subVersion", "expressionType", "maxMsgBytes", "brokerName",
        "producerGroup", "tranStateTableOffset", "commitLogOffset", "commitOrRollback", "fromTransactionCheck",
        "msgId", "transactionId", "group", "offset", "delayLevel", "originMsgId", "originTopic", "unitMode",
        "maxReconsumeTimes", "clientID", "timestamp", "invisibleTime", "pollTime", "bornTime", "initMode", "order",
        "extraInfo", "consumerGroupName", "setZeroIfNotFound",
        // common values
        "JAVA", "GO", "CPP", "JSON", "ROCKETMQ", "true", "false", "0", "1", "2", "3", "4", "5", "6", "7", "8", "16",
        "-1", "TBW102", "DefaultRegion", "*", "TAG", "SQL92",
    };
    private static final int MASK = 511;
    private static final String[] TABLE = new String[MASK + 1];
    private static final byte[][] BYTES = new byte[MASK + 1][];

    static {
        for (String w : WORDS) {
            final byte[] b = w.getBytes(StandardCharsets.US_ASCII);
            int slot = hash(b, 0, b.length) & MASK;
            while (TABLE[slot] != null) {
                slot = (slot + 1) & MASK;
            }
            TABLE[slot] = w;
            BYTES[slot] = b;
        }
    }

    private HeaderWords() {
    }

    /** The shared string for {@code in[start, start + length)}, or null when it is not a known word. */
    static String lookup(final byte[] in, final int start, final int length) {
        int slot = hash(in, start, length) & MASK;
        for (byte[] candidate; (candidate = BYTES[slot]) != null; slot = (slot + 1) & MASK) {
            if (candidate.length == length && Arrays.equals(candidate, 0, length, in, start, start + length)) {
                return TABLE[slot];
            }
        }
        return null;
    }

    private static int hash(final byte[] b, final int start, final int length) {
        int h = length;
        for (int i = start; i < start + length; i++) {
            h = 31 * h + b[i];
        }
        return h ^ (h >>> 9);
    }
}

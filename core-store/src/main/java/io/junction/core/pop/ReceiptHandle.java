package io.junction.core.pop;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What an ack needs to find a popped message, sealed so a client can neither forge nor alter it.
 *
 * <pre>
 * +---------+--------------------+-----------+-------------------+------------------+-------------------+
 * | version | checkpoint id (8)  | index (4) | queue offset (8)  | queue id (4)     | reconsume times(4)|
 * +---------+--------------------+-----------+-------------------+------------------+-------------------+
 * | deadline (8) | topic length (2) + topic UTF-8 | group length (2) + group UTF-8 | HMAC-SHA256[0..16) |
 * +--------------+--------------------------------+--------------------------------+--------------------+
 * </pre>
 * Encoded as URL-safe base64 without padding. The MAC covers every byte before it with the store's secret key.
 *
 * @param checkpointId which pop checkpoint the message belongs to
 * @param index        the message's position in that checkpoint
 * @param topic        the queue's topic (the retry topic when the message came from there)
 * @param deadline     when the message becomes visible again unless acked (epoch ms)
 */
public record ReceiptHandle(long checkpointId, int index, String group, String topic, int queueId,
                            long queueOffset, int reconsumeTimes, long deadline) {
    private static final byte VERSION = 1;
    private static final int MAC_LENGTH = 16;

    /** Seals handles with one key. */
    public static final class Codec {
        private final SecretKeySpec key;
        /**
         * One keyed Mac per thread: looking the algorithm up and keying it for every handle cost more than the MAC
         * itself (every pop seals handles and every ack opens one). doFinal leaves a Mac ready for the next use.
         */
        private final ThreadLocal<Mac> macs;

        public Codec(final byte[] secret) {
            this.key = new SecretKeySpec(secret.clone(), "HmacSHA256");
            this.macs = ThreadLocal.withInitial(this::newMac);
        }

        public String encode(final ReceiptHandle h) {
            final byte[] topic = h.topic().getBytes(StandardCharsets.UTF_8);
            final byte[] group = h.group().getBytes(StandardCharsets.UTF_8);
            final ByteBuffer buf = ByteBuffer.allocate(1 + 8 + 4 + 8 + 4 + 4 + 8 + 2 + topic.length + 2
                    + group.length + MAC_LENGTH);
            buf.put(VERSION).putLong(h.checkpointId()).putInt(h.index()).putLong(h.queueOffset())
                    .putInt(h.queueId()).putInt(h.reconsumeTimes()).putLong(h.deadline())
                    .putShort((short) topic.length).put(topic).putShort((short) group.length).put(group);
            buf.put(mac(buf.array(), buf.position()), 0, MAC_LENGTH);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(buf.array());
        }

        /** The handle, or null when the text is not a handle sealed with this key. */
        public ReceiptHandle decode(final String text) {
            if (text == null || text.length() > 2048) {
                return null;
            }
            final byte[] bytes;
            try {
                bytes = Base64.getUrlDecoder().decode(text);
            } catch (IllegalArgumentException e) {
                return null;
            }
            if (bytes.length < 1 + 8 + 4 + 8 + 4 + 4 + 8 + 2 + 2 + MAC_LENGTH || bytes[0] != VERSION) {
                return null;
            }
            final int signed = bytes.length - MAC_LENGTH;
            final byte[] expected = mac(bytes, signed);
            if (!MessageDigest.isEqual(Arrays.copyOf(expected, MAC_LENGTH),
                    Arrays.copyOfRange(bytes, signed, bytes.length))) {
                return null;
            }
            final ByteBuffer buf = ByteBuffer.wrap(bytes, 1, signed - 1);
            final long checkpointId = buf.getLong();
            final int index = buf.getInt();
            final long queueOffset = buf.getLong();
            final int queueId = buf.getInt();
            final int reconsumeTimes = buf.getInt();
            final long deadline = buf.getLong();
            final String topic = string(buf);
            final String group = string(buf);
            if (topic == null || group == null || buf.hasRemaining()) {
                return null;
            }
            return new ReceiptHandle(checkpointId, index, group, topic, queueId, queueOffset, reconsumeTimes,
                    deadline);
        }

        private static String string(final ByteBuffer buf) {
            if (buf.remaining() < 2) {
                return null;
            }
            final int length = buf.getShort() & 0xFFFF;
            if (length > buf.remaining()) {
                return null;
            }
            final byte[] b = new byte[length];
            buf.get(b);
            return new String(b, StandardCharsets.UTF_8);
        }

        private byte[] mac(final byte[] data, final int length) {
            final Mac mac = macs.get();
            mac.update(data, 0, length);
            return mac.doFinal();
        }

        private Mac newMac() {
            try {
                final Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 unavailable", e);
            }
        }
    }
}

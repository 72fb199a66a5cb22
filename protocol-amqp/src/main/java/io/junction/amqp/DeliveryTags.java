package io.junction.amqp;

/** The delivery tags of one link the broker sends on: a counter in as few bytes as it needs (tags are unique per link). */
final class DeliveryTags {
    private long next;

    byte[] next() {
        long t = next++;
        int n = 1;
        for (long v = t >>> 8; v != 0; v >>>= 8) {
            n++;
        }
        final byte[] tag = new byte[n];
        for (int i = n - 1; i >= 0; i--) {
            tag[i] = (byte) t;
            t >>>= 8;
        }
        return tag;
    }
}

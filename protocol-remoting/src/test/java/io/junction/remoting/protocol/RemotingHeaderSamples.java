package io.junction.remoting.protocol;

/** Headers as real clients write them. */
final class RemotingHeaderSamples {
    /** A 5.3.3 Java client's SEND_MESSAGE_V2 header (fastjson: sorted keys, escaped property separators). */
    static final String SEND_REQUEST = "{\"code\":310,\"extFields\":{\"a\":\"bench-producer\",\"b\":\"bench-topic\","
            + "\"bname\":\"junction\",\"c\":\"TBW102\",\"d\":\"4\",\"e\":\"3\",\"f\":\"0\",\"g\":\"1764684000123\","
            + "\"h\":\"0\",\"i\":\"UNIQ_KEY\\u00017F0000010A2B18B4AAC27A2F1B4C0000\\u0002WAIT\\u0001true\\u0002\","
            + "\"j\":\"0\",\"k\":\"false\",\"l\":\"16\",\"m\":\"false\",\"n\":\"junction\"},\"flag\":0,"
            + "\"language\":\"JAVA\",\"opaque\":1048576,\"serializeTypeCurrentRPC\":\"JSON\",\"version\":479}";

    private RemotingHeaderSamples() {
    }
}

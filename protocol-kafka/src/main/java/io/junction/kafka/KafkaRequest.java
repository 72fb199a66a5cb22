package io.junction.kafka;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One decoded request and the connection it came on.
 *
 * @param header     the request header (API key, version, correlation id, client id)
 * @param body       the request, parsed by kafka-clients' own classes
 * @param connection the connection to answer on
 */
record KafkaRequest(RequestHeader header, AbstractRequest body, KafkaConnection connection) {

    short version() {
        return header.apiVersion();
    }
}

/**
 * The Remoting wire format: frames ({@code int32 length | int32 headerInfo | header | body}), JSON (type 0) and
 * ROCKETMQ binary (type 1) headers both ways, request and response codes.
 */
package io.junction.remoting.protocol;

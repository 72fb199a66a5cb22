/**
 * Request-reply (RocketMQ 4.6+ {@code DefaultMQProducer.request}) across protocols. A RocketMQ request gets the
 * canonical reply-to address (its cluster's reply topic) and is remembered by correlation id with the requester's
 * connection; a RocketMQ reply (SEND_REPLY_MESSAGE) is pushed to that connection, or, for a request from another
 * protocol, stored at the request's reply-to address; replies other protocols store in the reply topic are read back
 * and pushed to the requester they answer.
 */
package io.junction.remoting.reply;

/**
 * CloudEvents over HTTP against the real broker jar: ingress in binary, structured and batched mode (raw HTTP and the
 * CloudEvents SDK's HTTP encoding), bad input, pull subscriptions, and push subscriptions observed by a local sink.
 */
package io.junction.conformance.cloudevents;

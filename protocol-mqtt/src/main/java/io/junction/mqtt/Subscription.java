package io.junction.mqtt;

/**
 * One subscription of a session.
 *
 * @param subscriptionId the MQTT 5 subscription identifier, 0 when none
 */
record Subscription(TopicFilter filter, int qos, boolean noLocal, boolean retainAsPublished, int retainHandling,
                    int subscriptionId) {
}

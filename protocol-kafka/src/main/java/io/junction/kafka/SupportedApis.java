package io.junction.kafka;

import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The APIs this broker answers and their version ranges: the library's own range, capped where a newer version would
 * ask for something not served (versions that name topics by id only).
 */
final class SupportedApis {
    private final Map<ApiKeys, Short> highest = new EnumMap<>(ApiKeys.class);

    /** Adds an API at every version the library knows. */
    SupportedApis add(final ApiKeys api) {
        return add(api, api.latestVersion());
    }

    /** Adds an API up to {@code maxVersion}. */
    SupportedApis add(final ApiKeys api, final int maxVersion) {
        highest.put(api, (short) Math.min(maxVersion, api.latestVersion()));
        return this;
    }

    boolean supports(final ApiKeys api, final short version) {
        final Short max = highest.get(api);
        return max != null && version >= api.oldestVersion() && version <= max;
    }

    /** The ApiVersions response: every supported API, with {@code error}. */
    ApiVersionsResponseData response(final Errors error) {
        final ApiVersionCollection keys = new ApiVersionCollection();
        highest.forEach((api, max) -> keys.add(new ApiVersion().setApiKey(api.id)
                .setMinVersion(api.oldestVersion()).setMaxVersion(max)));
        return new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(keys);
    }
}

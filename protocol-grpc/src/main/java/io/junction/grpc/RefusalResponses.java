package io.junction.grpc;

import apache.rocketmq.v2.Code;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;

/**
 * A response of any MessagingService method that carries only a refusal {@code Status}. Every response type of the
 * service has a {@code status} field, and the 5.x client turns a non-OK one into the exception of its code
 * ({@code UnauthorizedException} for UNAUTHORIZED, {@code ForbiddenException} for FORBIDDEN), so a call refused
 * before the service sees it answers exactly as the service would.
 */
final class RefusalResponses {

    private RefusalResponses() {
    }

    /** {@code method}'s response with {@code status = code, message}; null if the method's response has no status. */
    @SuppressWarnings("unchecked")
    static <R> R of(final MethodDescriptor<?, R> method, final Code code, final String message) {
        if (!(method.getResponseMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<R> marshaller)
                || !(marshaller.getMessagePrototype() instanceof Message prototype)) {
            return null;
        }
        final Descriptors.FieldDescriptor status = prototype.getDescriptorForType().findFieldByName("status");
        if (status == null || status.getJavaType() != Descriptors.FieldDescriptor.JavaType.MESSAGE) {
            return null;
        }
        return (R) prototype.newBuilderForType().setField(status, Statuses.of(code, message)).build();
    }
}

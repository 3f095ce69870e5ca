import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client takes longer than `timeout` from a request's headers to the end of its body.
/// Hummingbird's idle timeout counts every body chunk as activity, so a client sending one byte every few seconds
/// would otherwise hold a connection (and a request task) for as long as it likes.
///
/// Almost every request arrives whole in one read: the timer is set only for one still unfinished when a read
/// ends, so the common case schedules and cancels nothing on the event loop.
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let timeout: TimeAmount
    /// Whether a request's head has been read and its end not yet.
    private var unfinished = false
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unfinished = true
        case .body:
            break
        case .end:
            unfinished = false
            cancel()
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Counted from the end of the read that brought the head: later than the head by one read at most.
        if unfinished, deadline == nil {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    private func cancel() {
        deadline?.cancel()
        deadline = nil
    }
}

import EntityCache
import ScreenSeam
import Terminal

/// The container of screens: shows the top controller and routes keys to it.
///
/// The only caller of the controllers' lifecycle methods. Global keys — `q` quit,
/// `?` help, `i` request log, `r` refresh, Esc/←/h/Backspace back — apply when the
/// top screen does not use the key itself.
@MainActor
public final class NavigationStack {
    public private(set) var controllers: [any ScreenController] = []
    let environment: BrowserEnvironment

    public init(environment: BrowserEnvironment, root: any ScreenController) {
        self.environment = environment
        controllers = [root]
        root.willAppear()
        root.didAppear()
    }

    public var top: any ScreenController { controllers[controllers.count - 1] }

    /// Called for `:` when the top screen does not use it (``BrowserApp`` opens its command line).
    var onCommandKey: (() -> Void)?

    /// `People › Samson, Bob › Ford Explorer`.
    public var breadcrumb: [String] { controllers.map(\.breadcrumb) }

    public func push(_ controller: any ScreenController) {
        let previous = top
        previous.willDisappear()
        controller.willAppear()
        controllers.append(controller)
        previous.didDisappear()
        controller.didAppear()
        environment.setNeedsDisplay()
    }

    /// Pops the top screen (never the root); its prefetches are cancelled.
    public func pop() {
        guard controllers.count > 1 else { return }
        let leaving = controllers.removeLast()
        leaving.willDisappear()
        top.willAppear()
        leaving.didDisappear()
        top.didAppear()
        intents(of: leaving).screenDidClose(leaving.screenID)
        environment.setNeedsDisplay()
    }

    /// Does what a screen asked (a click's answer); false only for nothing.
    func perform(_ action: ScreenAction) {
        switch action {
        case .push(let controller): push(controller)
        case .pushAll(let controllers): controllers.forEach(push)
        case .pop: pop()
        case .replace(let controller): replace(with: controller)
        case .handled, .ignored: break
        }
    }

    /// The top screen gives way to `controller` (at the root, `controller` goes on top of it).
    func replace(with controller: any ScreenController) {
        if controllers.count > 1 {
            let leaving = controllers.removeLast()
            leaving.willDisappear()
            controller.willAppear()
            controllers.append(controller)
            leaving.didDisappear()
            controller.didAppear()
            intents(of: leaving).screenDidClose(leaving.screenID)
            environment.setNeedsDisplay()
        } else {
            push(controller)
        }
    }

    /// The fetcher a screen's fetches are with: its own service's (a value help's list may be another service's).
    func intents(of controller: any ScreenController) -> any SyncIntents {
        ((controller as? ServiceScreen)?.environment ?? environment).intents
    }

    /// Pops until the screen at `level` (0: the root) is on top.
    func pop(toLevel level: Int) {
        while controllers.count - 1 > max(0, level) { pop() }
    }

    /// Handles one key. Returns false when the user asked to quit.
    public func handle(_ key: Key) -> Bool {
        switch top.handle(key) {
        case .handled: return true
        case .push(let controller):
            push(controller)
            return true
        case .pushAll(let controllers):
            controllers.forEach(push)
            return true
        case .pop:
            pop()
            return true
        case .replace(let controller):
            replace(with: controller)
            return true
        case .ignored: break
        }
        switch key {
        case .char("q"), .ctrl("c"):
            return false
        case .char("?"), .function(1):
            if !(top is HelpController) { push(HelpController(environment: environment)) }
        case .char("i"):
            if !(top is RequestLogController) { push(RequestLogController(environment: environment)) }
        case .char("o"):
            if !(top is OutboxController) { push(OutboxController(environment: environment)) }
        case .char(":"):
            onCommandKey?()
        case .char("r"), .ctrl("r"):
            top.refresh()
            environment.setNeedsDisplay()
        case .escape, .left, .char("h"), .backspace:
            pop()
        default:
            break
        }
        return true
    }

    /// Closes every screen (on quit), so their observations and fetches stop.
    public func closeAll() {
        for controller in controllers.reversed() {
            controller.willDisappear()
            controller.didDisappear()
            intents(of: controller).screenDidClose(controller.screenID)
        }
    }
}

/// A screen that knows its environment: that of the session's service, or of a service opened for value help.
protocol ServiceScreen: AnyObject {
    var environment: BrowserEnvironment { get }
}

extension EntityListController: ServiceScreen {}
extension EntityDetailController: ServiceScreen {}
extension EntitySetsController: ServiceScreen {}
extension ChartController: ServiceScreen {}
extension CallResultController: ServiceScreen {}
extension TextViewController: ServiceScreen {}
extension EditFormController: ServiceScreen {}
extension OperationsController: ServiceScreen {}

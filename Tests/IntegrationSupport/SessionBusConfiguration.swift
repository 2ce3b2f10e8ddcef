/// The configuration of the private session bus: one socket in the session's
/// runtime directory, EXTERNAL authentication (which also admits root, as on CI),
/// no service activation, and a policy that allows everything.
package enum SessionBusConfiguration {
    /// The `dbus-daemon --config-file` document for a bus listening at `socketPath`.
    package static func document(socketPath: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socketPath)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>

        """
    }
}

/// Builds `org.freedesktop.DBus.Introspectable.Introspect` XML from the
/// declarative interface tables.
internal enum Introspection {
    /// The document for one node: its interfaces (`nil` for a path that only
    /// leads to exported objects) and the names of its direct children.
    static func document(interfaces: [BusInterface]?, children: [String], isObjectManager: Bool = false) -> String {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        for interface in interfaces ?? [] {
            append(interface, to: &xml)
        }
        xml += introspectable
        if interfaces != nil { xml += properties }
        if isObjectManager { append(ObjectManagerDeclaration.interface, to: &xml) }
        xml += peer
        for child in children {
            xml += "  <node name=\"\(escaped(child))\"/>\n"
        }
        xml += "</node>\n"
        return xml
    }

    private static func append(_ interface: BusInterface, to xml: inout String) {
        xml += "  <interface name=\"\(escaped(interface.name.rawValue))\">\n"
        for method in interface.methods {
            let body =
                method.inArguments.map { arg($0, direction: "in") }.joined()
                + method.outArguments.map { arg($0, direction: "out") }.joined()
                + annotations(method.annotations, indent: 6)
            xml += element("method", name: method.name.rawValue, body: body)
        }
        for signal in interface.signals {
            let body =
                signal.arguments.map { arg($0, direction: nil) }.joined()
                + annotations(signal.annotations, indent: 6)
            xml += element("signal", name: signal.name.rawValue, body: body)
        }
        for property in interface.properties {
            let access = property.access == .readWrite ? "readwrite" : "read"
            var propertyAnnotations: [BusAnnotation] = []
            switch property.changeSignal {
            case .emits: break  // the default; not worth stating
            case .invalidates: propertyAnnotations.append(BusAnnotation(emitsChangedSignal, "invalidates"))
            case .none: propertyAnnotations.append(BusAnnotation(emitsChangedSignal, "false"))
            case .constant: propertyAnnotations.append(BusAnnotation(emitsChangedSignal, "const"))
            }
            let open =
                "    <property name=\"\(escaped(property.name))\" type=\"\(escaped(property.signature))\" access=\"\(access)\""
            if propertyAnnotations.isEmpty {
                xml += open + "/>\n"
            } else {
                xml += open + ">\n" + annotations(propertyAnnotations, indent: 6) + "    </property>\n"
            }
        }
        xml += annotations(interface.annotations, indent: 4)
        xml += "  </interface>\n"
    }

    /// `<kind name="…">body</kind>`, or self-closing when `body` is empty.
    private static func element(_ kind: String, name: String, body: String) -> String {
        let open = "    <\(kind) name=\"\(escaped(name))\""
        return body.isEmpty ? open + "/>\n" : open + ">\n" + body + "    </\(kind)>\n"
    }

    private static func arg(_ argument: BusArgument, direction: String?) -> String {
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return "      <arg name=\"\(escaped(argument.name))\" type=\"\(escaped(argument.signature))\"\(direction)/>\n"
    }

    private static func annotations(_ annotations: [BusAnnotation], indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        return annotations.map {
            "\(pad)<annotation name=\"\(escaped($0.name))\" value=\"\(escaped($0.value))\"/>\n"
        }.joined()
    }

    /// Escapes text for use inside a double-quoted XML attribute.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// The annotation naming a property's change-signal behaviour.
    static let emitsChangedSignal = "org.freedesktop.DBus.Property.EmitsChangedSignal"

    private static let introspectable = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>

        """

    private static let properties = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    private static let peer = """
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>

        """
}

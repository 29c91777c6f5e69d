package io.vlink.core.qos;

/**
 * The kinds of port OpenSM configures separately: each has its own {@code qos_<type>_} option set
 * (OpenSM's manual, docs/qos.md). {@code sw2sw} is NVIDIA OpenSM's switch-to-switch set.
 */
public enum PortType
{
    /** Channel adapter ports: {@code qos_ca_*}. */
    CA("ca"),
    /** Switch external ports: {@code qos_swe_*}. */
    SWE("swe"),
    /** Switch port 0 (the management port): {@code qos_sw0_*}. */
    SW0("sw0"),
    /** Router ports: {@code qos_rtr_*}. */
    RTR("rtr"),
    /** Switch-to-switch external ports (NVIDIA OpenSM): {@code qos_sw2sw_*}. */
    SW2SW("sw2sw");

    private final String label;

    PortType(final String label)
    {
        this.label = label;
    }

    /**
     * @return the name used in option keys and on the command line: {@code ca}, {@code swe}, ...
     */
    public String label()
    {
        return label;
    }

    /**
     * @return the option prefix of this port type, e.g. {@code qos_ca_}.
     */
    public String prefix()
    {
        return "qos_" + label + "_";
    }

    /**
     * @param label {@code ca}, {@code swe}, {@code sw0}, {@code rtr} or {@code sw2sw} (any case).
     * @return the port type, or null when the label names none.
     */
    public static PortType ofLabel(final String label)
    {
        for (final PortType type : values())
        {
            if (type.label.equalsIgnoreCase(label))
            {
                return type;
            }
        }
        return null;
    }

    @Override
    public String toString()
    {
        return label;
    }
}

/// The version of the Lectern wire protocol this build speaks.
public let lecternProtocolVersion: UInt16 = 1

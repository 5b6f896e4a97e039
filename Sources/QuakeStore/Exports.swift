// A client imports QuakeStore alone: the model and the error type it uses (Quake, Column,
// Partitioning, QuakeError) are QuakeFormat's, and QuakeFormat makes nothing else public.
@_exported import QuakeFormat

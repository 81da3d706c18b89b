"""The front door: what a connection may hold, who may do what, and how bad input is refused."""

"""The lecture hall: the audience link and its QR code."""

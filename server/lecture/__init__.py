"""The lecture hall: the audience link and its QR code, and the presenter's view every page follows."""

"""What people read: terminal tables (and, later, the HTML report and replay viewer)."""

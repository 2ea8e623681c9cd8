"""The companion: command line, terminal play and the Flask web app for phones at the table."""

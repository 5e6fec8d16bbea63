"""server/store"""
